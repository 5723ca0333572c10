/** Tailwind builds only the classes Tally's templ components use. */
module.exports = {
  content: ["./views/**/*.templ", "./views/**/*.go", "./static/src/**/*.js"],
  theme: {
    extend: {
      fontFamily: {
        sans: ["Inter", "ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "sans-serif"],
      },
    },
  },
  plugins: [],
};
