/** The one-time login form of a server bound off loopback: the token goes in a POST body, never in a URL. */
export function loginPageHtml(failed: boolean): string {
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    <link rel="stylesheet" href="assets/theme.css">
    <title>Coevolve view: log in</title>
  </head>
  <body>
    <nav class="host-nav"><span class="brand">Coevolve</span></nav>
    <form method="post" action="/login" id="login">
      <p>This <code>coevolve view</code> is reachable from other machines, so it needs the access token it printed when it started.</p>
      ${failed ? '<p id="login-failed">That is not the token.</p>' : ''}
      <label>Access token <input name="token" type="password" autocomplete="current-password" autofocus required></label>
      <button type="submit">Open</button>
    </form>
  </body>
</html>`;
}
