/** Tailwind builds only the classes Tally's templ components use. */
const plugin = require("tailwindcss/plugin");
const palette = require("tailwindcss/colors");

// Dark mode follows the system (prefers-color-scheme). Rather than a dark: twin on every
// class, the colours Tally uses are CSS variables whose scales turn over in the dark: slate-50
// becomes slate-950, white the slate-900 of a card, and so on, so that every pairing of a
// background and a text keeps its contrast. Middle shades, used for secondary text, lean
// light in the dark so that they still read on a dark card.
const shades = [50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 950];
const names = ["slate", "emerald", "red", "amber", "blue"];
const darkShade = { 50: 950, 100: 900, 200: 800, 300: 700, 400: 600, 500: 400, 600: 400, 700: 300, 800: 200, 900: 100, 950: 50 };

const rgb = (hex) => {
  let h = hex.slice(1);
  if (h.length === 3) h = h.replace(/./g, "$&$&"); // #fff is #ffffff
  const n = parseInt(h, 16);
  return `${(n >> 16) & 255} ${(n >> 8) & 255} ${n & 255}`;
};
const variable = (name) => `rgb(var(--tally-${name}) / <alpha-value>)`;

const colors = { white: variable("white"), black: palette.black, transparent: "transparent", current: "currentColor" };
const light = { "--tally-white": rgb(palette.white) };
const dark = { "--tally-white": rgb(palette.slate[900]) };
for (const name of names) {
  colors[name] = {};
  for (const s of shades) {
    colors[name][s] = variable(`${name}-${s}`);
    light[`--tally-${name}-${s}`] = rgb(palette[name][s]);
    dark[`--tally-${name}-${s}`] = rgb(palette[name][darkShade[s]]);
  }
}

module.exports = {
  content: ["./views/**/*.templ", "./views/**/*.go", "./static/src/**/*.js"],
  theme: {
    colors,
    extend: {
      fontFamily: {
        sans: ["Inter", "ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "sans-serif"],
      },
    },
  },
  plugins: [
    plugin(({ addBase }) => {
      addBase({ ":root": { ...light, "color-scheme": "light dark" } });
      addBase({ "@media (prefers-color-scheme: dark)": { ":root": dark } });
    }),
  ],
};
