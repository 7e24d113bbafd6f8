/**
 * The dashboard page: it holds no data; its script asks for the token and calls the admin API.
 * Kept as a string in a module so that the bundled app (tsup, dist/main.js) serves it with no file
 * to find at run time. Written without backticks or `${`, so it can sit in a raw template literal.
 * @module
 */

/** The dashboard page. */
export const DASHBOARD_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>handoff broker</title>
<link rel="stylesheet" href="/dashboard/style.css">
<script src="/dashboard/app.js" defer></script>
</head>
<body>
<header>
  <h1>handoff broker</h1>
  <span id="version"></span>
  <button id="sign-out" type="button">Forget token</button>
</header>
<section id="login" hidden>
  <form id="login-form">
    <label for="token">Admin token</label>
    <input id="token" type="password" autocomplete="off" required minlength="16">
    <button type="submit">Open</button>
  </form>
  <p id="login-message"></p>
  <p class="hint">The token is the broker's <code>admin.token</code> (or <code>HANDOFF_BROKER_ADMIN_TOKEN</code>). It stays in this tab's session storage.</p>
</section>
<main id="main" hidden>
  <p id="error" role="alert"></p>
  <section class="cards">
    <div class="card"><span class="label">Connections</span><span class="value" id="connections">–</span></div>
    <div class="card"><span class="label">msg/s in</span><span class="value" id="rate-in">–</span></div>
    <div class="card"><span class="label">msg/s out</span><span class="value" id="rate-out">–</span></div>
    <div class="card"><span class="label">Queued</span><span class="value" id="queued">–</span></div>
    <div class="card"><span class="label">In flight</span><span class="value" id="inflight">–</span></div>
    <div class="card"><span class="label">Sessions</span><span class="value" id="sessions">–</span></div>
    <div class="card"><span class="label">Subscriptions</span><span class="value" id="subscriptions">–</span></div>
    <div class="card"><span class="label">Retained</span><span class="value" id="retained">–</span></div>
    <div class="card"><span class="label">Dropped</span><span class="value" id="dropped">–</span><ul id="dropped-reasons"></ul></div>
  </section>
  <section>
    <h2>Clients</h2>
    <table>
      <thead><tr><th>Client id</th><th>Address</th><th>Protocol</th><th>Since</th><th>Keep alive</th><th>User</th><th>In flight</th><th>Queued</th><th>Subs</th><th></th></tr></thead>
      <tbody id="clients-body"></tbody>
    </table>
    <p id="clients-empty" class="hint">No client connected.</p>
    <p id="clients-more" class="hint" hidden>More clients than shown (the first 200 by client id).</p>
  </section>
  <div class="columns">
    <section>
      <h2>Retained messages</h2>
      <form id="retained-form"><input id="retained-filter" value="#" aria-label="Retained filter"><button type="submit">Show</button></form>
      <div id="retained-tree"></div>
      <p id="retained-empty" class="hint">No retained message matches.</p>
      <p id="retained-more" class="hint" hidden>More topics than shown (the first 500).</p>
    </section>
    <section>
      <h2>Subscription tester</h2>
      <form id="tester-form">
        <input id="tester-filter" value="#" aria-label="Topic filter">
        <input id="tester-username" placeholder="user (optional)" autocomplete="off" aria-label="User name">
        <input id="tester-password" type="password" placeholder="password" autocomplete="off" aria-label="Password">
        <button id="tester-subscribe" type="submit" disabled>Subscribe</button>
        <button id="tester-stop" type="button">Stop</button>
      </form>
      <p class="hint">Over MQTT over WebSocket at <span id="tester-endpoint"></span>: <span id="tester-status">not subscribed</span></p>
      <ul id="tester-messages"></ul>
    </section>
  </div>
</main>
</body>
</html>
`;
