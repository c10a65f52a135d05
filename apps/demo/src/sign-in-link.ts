/** A page's sign-in link could not be issued. */
export class SignInLinkError extends Error {
  readonly code = "ERR_SIGN_IN_LINK";
  override readonly name = "SignInLinkError";
}

/**
 * A link that signs a browser into an app's page (the store's or the receiver's) once, within ten
 * minutes: a single-use code from `POST /login-codes`, issued for `token`, in the URL's fragment. The
 * token itself is never in a URL, so it never reaches the browser's history.
 */
export async function signInLink(appUrl: string, token: string): Promise<string> {
  const response = await fetch(new URL("/login-codes", appUrl), {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  if (response.status !== 201)
    throw new SignInLinkError(`POST ${appUrl}/login-codes answered ${response.status}: ${text}`);
  const { code } = JSON.parse(text) as { code: string };
  return `${appUrl}/#code=${code}`;
}
