/** A sign-up the form accepts, by field name, as the form posts it. */
export const VALID_SIGNUP = {
  first_name: "Ada",
  last_name: "Lovelace",
  email: "ada@example.org",
  use_description: "Call-blocking research",
  terms_and_conditions: "true",
} as const;
