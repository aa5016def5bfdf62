/** What a redacted password is shown as. */
export const REDACTED = "***";

// `scheme://user:password@`: the password runs to the last `@` before the host (an unencoded `@`
// in it included) and cannot hold `/`, `?`, `#` or white space, which would end the authority.
const USERINFO_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)[^\s/?#]*@/gi;
// `?password=` and `&sslpassword=`, which PostgreSQL connection URLs also accept.
const QUERY_PASSWORD = /([?&](?:ssl)?password=)[^&#\s]*/gi;

/**
 * `text` with the password of every URL in it shown as `***`, both in the user information
 * (`postgres://ftcapi:***@db/ftcapi`) and in a `password` or `sslpassword` query parameter.
 * Everything else, the user name included, is unchanged. For anything ftcapi prints or logs that
 * may hold a database location or another URL given by the operator (the startup banner, errors).
 */
export function redactPasswords(text: string): string {
  return text.replace(USERINFO_PASSWORD, `$1${REDACTED}@`).replace(QUERY_PASSWORD, `$1${REDACTED}`);
}
