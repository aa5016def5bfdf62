import { escapeHtml } from "../domain/html-text.js";
import { SIGNUP_FIELDS } from "../domain/signup-form.js";
import { curlCommand, type ExampleRequest } from "./example-request.js";

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 1rem/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; }
label { display: block; font-weight: 600; margin-top: 1rem; }
input[type=text], input[type=email], textarea { width: 100%; padding: .5rem; font: inherit; border: 1px solid #565c65; }
textarea { min-height: 5rem; }
.check label { display: inline; font-weight: normal; }
.error { color: #b50909; font-weight: 600; }
.key { font: 1.25rem monospace; padding: .75rem; background: #f0f0f0; border: 1px solid #565c65; word-break: break-all; }
button { margin-top: 1.5rem; padding: .6rem 1.4rem; font: inherit; background: #005ea2; color: #fff; border: 0; }
:focus { outline: 3px solid #2491ff; outline-offset: 2px; }
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export interface SignupFormState {
  values?: Record<string, string>;
  error?: { field: string | undefined; message: string };
}

/** The sign-up form: labelled fields, native validation, and the error (if any) announced first. */
export function signupFormPage(state: SignupFormState = {}): string {
  const values = state.values ?? {};
  const error = state.error;
  const describedBy = (field: string) =>
    error?.field === field ? ' aria-invalid="true" aria-describedby="form-error"' : "";
  const value = (field: string) => escapeHtml(values[field] ?? "");
  return page(
    "Get an API key",
    `<h1>Get an API key</h1>
<p>A key lets you call the Do Not Call complaints and early-termination notices API. It is shown once, on the next page.</p>
${error ? `<p id="form-error" class="error" role="alert">${escapeHtml(error.message)}</p>` : ""}
<form method="post" action="/signup">
<label for="first_name">${SIGNUP_FIELDS.first_name}</label>
<input type="text" id="first_name" name="first_name" autocomplete="given-name" required maxlength="80" value="${value("first_name")}"${describedBy("first_name")}>
<label for="last_name">${SIGNUP_FIELDS.last_name}</label>
<input type="text" id="last_name" name="last_name" autocomplete="family-name" required maxlength="80" value="${value("last_name")}"${describedBy("last_name")}>
<label for="email">${SIGNUP_FIELDS.email}</label>
<input type="email" id="email" name="email" autocomplete="email" required maxlength="254" value="${value("email")}"${describedBy("email")}>
<label for="use_description">${SIGNUP_FIELDS.use_description} (optional)</label>
<textarea id="use_description" name="use_description" maxlength="1000"${describedBy("use_description")}>${value("use_description")}</textarea>
<p class="check"><input type="checkbox" id="terms_and_conditions" name="terms_and_conditions" value="true" required${describedBy("terms_and_conditions")}>
<label for="terms_and_conditions">${SIGNUP_FIELDS.terms_and_conditions}: the data is provided as is, keys are personal, and limits apply (1,000 requests an hour unless agreed otherwise).</label></p>
<button type="submit">Get my key</button>
</form>`,
  );
}

/**
 * The answer to a successful sign-up: the key, once, and a curl request that works as copied: at
 * the server's absolute address, with `--cacert` when the certificate is the self-signed one.
 */
export function signupDonePage(key: string, email: string, example: ExampleRequest): string {
  const caNote =
    example.caCertPath === undefined
      ? ""
      : `\n<p>This server's certificate is self-signed: <code>--cacert</code> names it on the server's machine (copy the file to call from elsewhere).</p>`;
  return page(
    "Your API key",
    `<h1>Your API key</h1>
<p>Keep this key safe: it is shown only once. It was issued to ${escapeHtml(email)}.</p>
<p id="api-key" class="key">${escapeHtml(key)}</p>
<p>Send it in the <code>X-Api-Key</code> header, or as the <code>api_key</code> parameter:</p>
<pre id="example-request">${escapeHtml(curlCommand(example, key, "/v0/dnc-complaints?items_per_page=5"))}</pre>${caNote}`,
  );
}

/** Shown when an address has asked for too many keys. */
export function signupLimitedPage(retryAfterSeconds: number): string {
  return page(
    "Too many sign-ups",
    `<h1>Too many sign-ups</h1>
<p role="alert">Too many keys were requested from your address. Try again in ${Math.ceil(retryAfterSeconds / 60)} minutes.</p>`,
  );
}
