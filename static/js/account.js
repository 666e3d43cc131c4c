// The account part of the lobby (PROTOCOL.md "Identity"): a guest saves its name as an account or
// logs in; an account logs out or changes its password. The server judges every password and
// every name; a form checks only what is its own (a confirmation that differs, an empty field)
// and shows the server's answer inline. After a change of identity the lobby re-reads the
// session (onSession) and redraws.

import { h, fill, show } from "./dom.js";
import { t } from "./i18n.js";
import { ApiError, changePassword, claimAccount, logIn, logOut } from "./api.js";
import { toast } from "./announce.js";

function field(id, labelKey, attrs) {
  return h("div", { class: "field" },
    h("label", { for: id, class: "field-label", "data-i18n": labelKey }),
    h("input", { id, class: "text-input", spellcheck: "false", ...attrs }));
}

const password = (id, labelKey, autocomplete) =>
  field(id, labelKey, { type: "password", autocomplete, ...(autocomplete === "new-password" ? { minlength: "8" } : {}) });

/** What to tell the person about a refused request. */
function problemText(err) {
  if (!(err instanceof ApiError)) return String(err);
  if (err.status === 429) return t("account.retry_in", { s: err.retryAfterS ?? 1 });
  if (err.status === 0) return t("account.network");
  return err.message;
}

const FORMS = {
  claim: {
    titleKey: "account.claim_title",
    submitKey: "account.claim_submit",
    fields: () => [
      field("claim-name", "account.name", { type: "text", autocomplete: "username", readonly: true }),
      password("claim-password", "account.new_password", "new-password"),
      password("claim-confirm", "account.confirm_password", "new-password"),
    ],
  },
  login: {
    titleKey: "account.login_title",
    submitKey: "account.login_submit",
    fields: () => [
      field("login-name", "account.name", { type: "text", autocomplete: "username", autocapitalize: "none" }),
      password("login-password", "account.password", "current-password"),
    ],
  },
  password: {
    titleKey: "account.password_title",
    submitKey: "account.password_submit",
    fields: () => [
      // For password managers: whose password this is.
      h("input", { id: "password-name", type: "text", autocomplete: "username", hidden: true }),
      password("password-current", "account.current_password", "current-password"),
      password("password-new", "account.new_password", "new-password"),
      password("password-confirm", "account.confirm_password", "new-password"),
    ],
  },
};

export class AccountPanel {
  constructor(onSession) {
    this.onSession = onSession;
    this.me = null;
    this.openKind = null;
    this.busy = false;
    this.status = h("p", { class: "account-status", id: "account-status" });
    const toggle = (kind, labelKey) => {
      const button = h("button", {
        type: "button", class: "btn btn-ghost btn-small", "data-action": `open-${kind}`,
        "aria-expanded": "false", "aria-controls": `${kind}-form`, "data-i18n": labelKey,
      });
      button.addEventListener("click", () => this.toggle(kind));
      return button;
    };
    this.toggles = {
      claim: toggle("claim", "account.claim_open"),
      login: toggle("login", "account.login_open"),
      password: toggle("password", "account.password_open"),
    };
    this.logoutButton = h("button", { type: "button", class: "btn btn-ghost btn-small", "data-action": "log-out", "data-i18n": "account.log_out" });
    this.logoutButton.addEventListener("click", () => this.logOut());
    this.forms = Object.fromEntries(Object.entries(FORMS).map(([kind, spec]) => [kind, this.buildForm(kind, spec)]));
    this.el = h("div", { class: "account-panel", id: "account-panel" },
      this.status,
      h("div", { class: "account-actions" }, this.toggles.claim, this.toggles.login, this.toggles.password, this.logoutButton),
      Object.values(this.forms));
  }

  buildForm(kind, spec) {
    const cancel = h("button", { type: "button", class: "btn btn-ghost btn-small", "data-action": "cancel", "data-i18n": "account.cancel" });
    cancel.addEventListener("click", () => this.close(true));
    const form = h("form", { class: "account-form", id: `${kind}-form`, novalidate: true, hidden: true, "aria-labelledby": `${kind}-form-title` },
      h("h3", { class: "account-form-title", id: `${kind}-form-title`, "data-i18n": spec.titleKey }),
      spec.fields(),
      h("p", { class: "form-error", role: "alert" }),
      h("div", { class: "form-actions" },
        h("button", { type: "submit", class: "btn btn-primary btn-small", "data-action": `submit-${kind}`, "data-i18n": spec.submitKey }),
        cancel));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit(kind);
    });
    return form;
  }

  /** Redraw for `me` (null, a guest or an account); an open form stays open if it still fits. */
  render(me) {
    this.me = me;
    const account = Boolean(me && me.account);
    if (!account) this.status.textContent = me ? t("account.guest_hint") : t("account.none_hint");
    else {
      fill(this.status, t("account.signed_in", { name: me.name }), " ",
        h("a", { class: "player-link", href: `/@/${encodeURIComponent(me.name)}`, "data-action": "my-profile" }, t("account.profile")));
    }
    this.status.classList.toggle("is-account", account);
    show(this.toggles.claim, Boolean(me) && !account);
    show(this.toggles.login, !account);
    show(this.toggles.password, account);
    show(this.logoutButton, account);
    if (this.openKind && this.toggles[this.openKind].hidden) this.close(false);
    const name = me ? me.name : "";
    this.forms.claim.querySelector("#claim-name").value = name;
    this.forms.password.querySelector("#password-name").value = name;
  }

  toggle(kind) {
    if (this.openKind === kind) {
      this.close(true);
      return;
    }
    this.close(false);
    this.openKind = kind;
    show(this.forms[kind], true);
    this.toggles[kind].setAttribute("aria-expanded", "true");
    const first = this.forms[kind].querySelector("input:not([readonly]):not([hidden])");
    if (first) first.focus();
  }

  /** Close the open form, emptied; focus back on its button when asked. */
  close(refocus) {
    const kind = this.openKind;
    if (!kind) return;
    this.openKind = null;
    const form = this.forms[kind];
    for (const input of form.querySelectorAll("input[type=password], #login-name")) input.value = "";
    this.setProblem(form, "");
    show(form, false);
    this.toggles[kind].setAttribute("aria-expanded", "false");
    if (refocus) this.toggles[kind].focus();
  }

  setProblem(form, text, input = null) {
    form.querySelector(".form-error").textContent = text;
    for (const el of form.querySelectorAll("input")) el.removeAttribute("aria-invalid");
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  }

  /** The form's own checks: a field left empty, a confirmation that differs. */
  formProblem(form) {
    for (const input of form.querySelectorAll("input:not([readonly]):not([hidden])")) {
      if (!input.value) return [t("account.field_needed"), input];
    }
    const confirm = form.querySelector("[id$=-confirm]");
    const chosen = form.querySelector("#claim-password, #password-new");
    if (confirm && chosen && confirm.value !== chosen.value) return [t("account.mismatch"), confirm];
    return null;
  }

  async submit(kind) {
    if (this.busy) return;
    const form = this.forms[kind];
    const problem = this.formProblem(form);
    if (problem) {
      this.setProblem(form, ...problem);
      return;
    }
    const value = (id) => form.querySelector(`#${id}`).value;
    const submitButton = form.querySelector("[type=submit]");
    this.busy = true;
    submitButton.disabled = true;
    this.setProblem(form, "");
    try {
      if (kind === "claim") {
        const player = await claimAccount(value("claim-password"));
        toast(t("account.claimed", { name: player.name }), "ok");
      } else if (kind === "login") {
        const player = await logIn(value("login-name").trim(), value("login-password"));
        toast(t("account.welcome", { name: player.name }), "ok");
      } else {
        await changePassword(value("password-current"), value("password-new"));
        toast(t("account.password_changed"), "ok");
      }
      this.close(false);
      if (kind !== "password") await this.onSession();
    } catch (err) {
      this.setProblem(form, problemText(err));
    } finally {
      this.busy = false;
      submitButton.disabled = false;
    }
  }

  async logOut() {
    if (this.busy) return;
    this.busy = true;
    try {
      await logOut();
      toast(t("account.logged_out"), "ok");
      await this.onSession();
    } catch (err) {
      toast(problemText(err), "error");
    } finally {
      this.busy = false;
    }
  }
}
