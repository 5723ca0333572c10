// Tally's few enhancements over plain HTML. Every page works without them.
(function () {
  "use strict";

  // htmx requests carry the CSRF token of the page.
  document.addEventListener("htmx:configRequest", function (e) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) e.detail.headers["X-CSRF-Token"] = meta.content;
  });

  // Each cell of a table that stacks on a phone carries its column's name.
  function labelCells(root) {
    root.querySelectorAll("table[data-stack]").forEach(function (table) {
      var names = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) { return th.textContent.trim(); });
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        Array.prototype.forEach.call(tr.children, function (td, i) {
          if (names[i] && !td.hasAttribute("colspan")) td.setAttribute("data-label", names[i]);
        });
      });
    });
  }

  function init(root) {
    labelCells(root.closest ? (root.closest("table[data-stack]") || root) : root);
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

  // Passkeys (WebAuthn). The server's options carry their binary fields as base64url, and the
  // browser's answer goes back the same way.
  var noWebAuthn = "This browser cannot use passkeys. Use a current browser, or sign in another way.";
  function webauthnMissing() { return !window.PublicKeyCredential || !navigator.credentials; }
  function fromB64(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var b = atob(s), a = new Uint8Array(b.length);
    for (var i = 0; i < b.length; i++) a[i] = b.charCodeAt(i);
    return a.buffer;
  }
  function toB64(buf) {
    var a = new Uint8Array(buf), s = "";
    for (var i = 0; i < a.length; i++) s += String.fromCharCode(a[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function postJSON(url, body) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return fetch(url, {
      method: "POST", credentials: "same-origin", body: JSON.stringify(body || {}),
      headers: { "Content-Type": "application/json", "Accept": "application/json", "X-CSRF-Token": meta ? meta.content : "" }
    }).then(function (r) {
      if (r.redirected) {
        // Signed out meanwhile, or sent elsewhere first: the page that says so is the answer.
        window.location.assign(r.url);
        return new Promise(function () {});
      }
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (!r.ok) throw new Error(j.message || "The server refused the passkey (" + r.status + ").");
        return j;
      });
    });
  }
  function creationOptions(o) {
    var p = o.publicKey;
    p.challenge = fromB64(p.challenge);
    p.user.id = fromB64(p.user.id);
    (p.excludeCredentials || []).forEach(function (c) { c.id = fromB64(c.id); });
    return p;
  }
  function requestOptions(o) {
    var p = o.publicKey;
    p.challenge = fromB64(p.challenge);
    (p.allowCredentials || []).forEach(function (c) { c.id = fromB64(c.id); });
    return p;
  }
  function credentialJSON(cred) {
    var r = cred.response;
    var out = { id: cred.id, rawId: toB64(cred.rawId), type: cred.type, response: { clientDataJSON: toB64(r.clientDataJSON) },
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {} };
    if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
    if (r.attestationObject) {
      out.response.attestationObject = toB64(r.attestationObject);
      if (r.getTransports) out.response.transports = r.getTransports();
    }
    if (r.authenticatorData) {
      out.response.authenticatorData = toB64(r.authenticatorData);
      out.response.signature = toB64(r.signature);
      if (r.userHandle) out.response.userHandle = toB64(r.userHandle);
    }
    return out;
  }
  function passkeyError(el, e) {
    var msg = e && e.name === "NotAllowedError" ? "The passkey request was cancelled or timed out." :
      e && e.name === "InvalidStateError" ? "This device already holds a passkey of your account." :
      (e && e.message) || String(e);
    if (!el) return;
    el.textContent = msg;
    el.classList.remove("hidden");
  }

  function passkeys(root) {
    root.querySelectorAll("[data-passkey-register]").forEach(function (form) {
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        var errorBox = document.querySelector("[data-passkey-error]");
        if (webauthnMissing()) return passkeyError(errorBox, new Error(noWebAuthn));
        var name = form.querySelector('[name="name"]').value;
        postJSON("/settings/passkeys/options")
          .then(function (o) { return navigator.credentials.create({ publicKey: creationOptions(o) }); })
          .then(function (cred) { return postJSON("/settings/passkeys/register?name=" + encodeURIComponent(name), credentialJSON(cred)); })
          .then(function (j) { window.location.assign(j.redirect); })
          .catch(function (err) { passkeyError(errorBox, err); });
      });
    });
    // A step-up answered with a passkey: the assertion goes with the form, posted again.
    root.querySelectorAll("[data-step-up-passkey]").forEach(function (btn) {
      var form = btn.closest("form"), errorBox = form.querySelector("[data-passkey-error]");
      btn.addEventListener("click", function () {
        if (webauthnMissing()) return passkeyError(errorBox, new Error(noWebAuthn));
        postJSON(form.getAttribute("data-step-up"))
          .then(function (o) { return navigator.credentials.get({ publicKey: requestOptions(o) }); })
          .then(function (cred) {
            form.querySelector('[name="step_up_passkey"]').value = JSON.stringify(credentialJSON(cred));
            form.submit();
          })
          .catch(function (err) { passkeyError(errorBox, err); });
      });
    });
    root.querySelectorAll("[data-passkey-signin]").forEach(function (box) {
      var errorBox = box.querySelector("[data-passkey-error]");
      var pending = null; // the conditional request, aborted when the button starts another
      function signIn(conditional) {
        // The conditional request is abortable from the start, so that a click on the button
        // while its options are still on their way stops it before it asks the browser.
        var controller = conditional ? new AbortController() : null;
        if (controller) pending = controller;
        return postJSON(box.getAttribute("data-passkey-signin")).then(function (o) {
          var req = { publicKey: requestOptions(o) };
          if (controller) {
            if (controller.signal.aborted) throw new DOMException("Aborted", "AbortError");
            req.mediation = "conditional";
            req.signal = controller.signal;
          }
          return navigator.credentials.get(req);
        }).then(function (cred) { return postJSON(box.getAttribute("data-passkey-finish"), credentialJSON(cred)); })
          .then(function (j) { window.location.assign(j.redirect); });
      }
      box.querySelector("[data-passkey-button]").addEventListener("click", function () {
        if (webauthnMissing()) return passkeyError(errorBox, new Error(noWebAuthn));
        if (pending) { pending.abort(); pending = null; }
        signIn(false).catch(function (err) { passkeyError(errorBox, err); });
      });
      // Conditional UI: the browser offers the passkeys in the email field's autofill.
      if (!webauthnMissing() && document.querySelector('input[autocomplete~="webauthn"]') &&
          PublicKeyCredential.isConditionalMediationAvailable) {
        PublicKeyCredential.isConditionalMediationAvailable().then(function (ok) {
          if (ok) signIn(true).catch(function (err) { if (!err || err.name !== "AbortError") passkeyError(errorBox, err); });
        });
      }
    });
  }

  // A panel that htmx opens in place (the form that fixes a transaction) takes the focus when
  // it opens, and its Close link empties it in place rather than reloading the list.
  document.addEventListener("click", function (e) {
    var close = e.target.closest && e.target.closest("[data-panel-close]");
    var panel = close && close.closest("[data-panel]");
    if (!panel) return;
    e.preventDefault();
    panel.innerHTML = "";
  });
  // A form in a panel answers 422 with itself and its errors: that answer is shown too.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var target = e.detail.target;
    if (e.detail.xhr.status === 422 && target.hasAttribute && target.hasAttribute("data-panel")) {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
    }
  });
  // The upload form is posted by htmx and swapped back in around its file input
  // (hx-preserve), so that a refused upload keeps the chosen file: the answer is the form with
  // its errors. An answer that is no form (the request was refused before it was read) goes
  // above the form as its error.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var target = e.detail.target, xhr = e.detail.xhr;
    if (xhr.status < 400 || !target.hasAttribute || !target.hasAttribute("data-keeps-file")) return;
    var doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
    if (doc.querySelector("#" + target.id + " > form")) {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
      return;
    }
    var alert = doc.querySelector('[role="alert"]'), form = target.querySelector("form");
    if (!alert || !form) return;
    var old = form.querySelector('[role="alert"]');
    if (old) old.remove();
    form.prepend(alert);
    alert.setAttribute("tabindex", "-1");
    alert.focus();
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    var target = e.detail.target;
    if (!target.hasAttribute || !target.hasAttribute("data-keeps-file")) return;
    var first = target.querySelector('[role="alert"], [id^="error-"]');
    if (first) {
      first.setAttribute("tabindex", "-1");
      first.focus();
    }
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    var panel = e.detail.target;
    if (!panel.hasAttribute || !panel.hasAttribute("data-panel")) return;
    var first = panel.querySelector('[aria-invalid="true"], input:not([type="hidden"]), select, [role="status"]');
    if (first) {
      if (first.getAttribute("role") === "status") first.setAttribute("tabindex", "-1");
      first.focus();
    }
    panel.scrollIntoView({ block: "nearest" });
  });

  // A select whose option groups depend on another select (data-depends-on="<its name>")
  // offers only the group of that select's value, and drops a choice of another group.
  function dependentSelects(root) {
    root.querySelectorAll("select[data-depends-on]").forEach(function (select) {
      var form = select.form;
      var parent = form && form.querySelector('select[name="' + select.getAttribute("data-depends-on") + '"]');
      if (!parent) return;
      var sync = function () {
        Array.prototype.forEach.call(select.querySelectorAll("optgroup[data-group]"), function (g) {
          var mine = g.getAttribute("data-group") === parent.value;
          g.hidden = !mine;
          g.disabled = !mine;
          if (!mine && g.contains(select.selectedOptions[0])) select.value = "";
        });
      };
      parent.addEventListener("change", sync);
      sync();
    });
  }

  // A region that scrolls sideways (a wide table on a narrow screen) takes the keyboard's focus,
  // so that its arrow keys scroll it; one that fits is no extra stop for the Tab key.
  function scrollRegions() {
    document.querySelectorAll("[data-scroll-region]").forEach(function (el) {
      if (el.scrollWidth > el.clientWidth) el.setAttribute("tabindex", "0");
      else el.removeAttribute("tabindex");
    });
  }

  // The box in a list's header (data-tick-all) ticks or unticks every row's box (data-tick-row)
  // of its table, and shows whether all, some or none are ticked. Without JavaScript it stays
  // hidden.
  function tickAll(root) {
    root.querySelectorAll("table").forEach(function (table) {
      var all = table.querySelector("[data-tick-all]");
      if (!all) return;
      var rows = function () { return table.querySelectorAll("[data-tick-row]"); };
      var sync = function () {
        var boxes = rows(), ticked = Array.prototype.filter.call(boxes, function (b) { return b.checked; }).length;
        all.checked = boxes.length > 0 && ticked === boxes.length;
        all.indeterminate = ticked > 0 && ticked < boxes.length;
      };
      all.hidden = false;
      all.addEventListener("change", function () {
        rows().forEach(function (b) { b.checked = all.checked; });
        all.indeterminate = false;
      });
      table.addEventListener("change", function (e) { if (e.target.matches("[data-tick-row]")) sync(); });
      table.addEventListener("htmx:afterSettle", sync);
    });
  }

  // A fold marked data-open-wide (the transactions' filters) starts open on a screen wide
  // enough for it; on a phone it stays folded under its summary, and the rows come first.
  function openWide() {
    if (!window.matchMedia("(min-width: 640px)").matches) return;
    document.querySelectorAll("details[data-open-wide]").forEach(function (d) { d.open = true; });
  }

  // A hidden field for the browser's time zone (an IANA name such as Europe/Berlin).
  function browserZone(root) {
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
    root.querySelectorAll("input[data-browser-zone]").forEach(function (input) {
      if (!input.value) input.value = zone;
    });
  }

  // The main navigation's menu button, shown on narrow screens: the menu starts closed.
  function menu() {
    var nav = document.querySelector("nav[data-menu]");
    var button = nav && nav.querySelector("[data-menu-toggle]");
    if (!button) return;
    nav.setAttribute("data-menu", "closed");
    button.hidden = false;
    button.addEventListener("click", function () {
      var open = nav.getAttribute("data-menu") !== "open";
      nav.setAttribute("data-menu", open ? "open" : "closed");
      button.setAttribute("aria-expanded", String(open));
    });
  }

  document.addEventListener("DOMContentLoaded", function () { init(document); toggles(document); dependentSelects(document); browserZone(document); passkeys(document); menu(); scrollRegions(); openWide(); tickAll(document); });
  document.addEventListener("htmx:load", function (e) { if (e.target !== document.body) init(e.target); scrollRegions(); });
  window.addEventListener("resize", scrollRegions);
})();
