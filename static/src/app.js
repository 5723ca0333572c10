// Tally's few enhancements over plain HTML. Every page works without them.
(function () {
  "use strict";

  // htmx requests carry the CSRF token of the page.
  document.addEventListener("htmx:configRequest", function (e) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) e.detail.headers["X-CSRF-Token"] = meta.content;
  });

  function init(root) {
    // The first invalid field of a form gets focus.
    var invalid = root.querySelector('[aria-invalid="true"]');
    if (invalid && root === document) invalid.focus();

    // Copy buttons copy the value of their target.
    root.querySelectorAll("[data-copy-target]").forEach(function (btn) {
      btn.addEventListener("click", function () {
        var el = document.getElementById(btn.getAttribute("data-copy-target"));
        if (!el) return;
        navigator.clipboard.writeText(el.value || el.textContent).then(function () {
          var label = btn.textContent;
          btn.textContent = "Copied";
          setTimeout(function () { btn.textContent = label; }, 1500);
        });
      });
    });

    // Confirm dialogs: a button opens its <dialog>; a typed confirmation enables the submit.
    root.querySelectorAll("[data-dialog-open]").forEach(function (btn) {
      btn.addEventListener("click", function (e) {
        var dlg = document.getElementById(btn.getAttribute("data-dialog-open"));
        if (dlg && dlg.showModal) { e.preventDefault(); dlg.showModal(); }
      });
    });
    root.querySelectorAll("[data-dialog-close]").forEach(function (btn) {
      btn.addEventListener("click", function () { var d = btn.closest("dialog"); if (d) d.close(); });
    });
    root.querySelectorAll("[data-confirm-text]").forEach(function (input) {
      var form = input.closest("form");
      var submit = form && form.querySelector('[type="submit"]');
      if (!submit) return;
      var check = function () { submit.disabled = input.value.trim() !== input.getAttribute("data-confirm-text"); };
      input.addEventListener("input", check);
      check();
    });
  }

  // A field shown only while a check box is ticked (data-show-when="<check box name>").
  function toggles(root) {
    root.querySelectorAll("[data-show-when]").forEach(function (el) {
      var box = document.querySelector('input[type="checkbox"][name="' + el.getAttribute("data-show-when") + '"]');
      if (!box) return;
      var sync = function () { el.hidden = !box.checked; };
      box.addEventListener("change", sync);
      sync();
    });
  }

  document.addEventListener("DOMContentLoaded", function () { init(document); toggles(document); });
  document.addEventListener("htmx:load", function (e) { if (e.target !== document.body) init(e.target); });
})();
