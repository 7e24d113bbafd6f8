/**
 * The dashboard script: polls the admin API and runs the subscription tester (a tiny MQTT 3.1.1 client over WebSocket).
 * Kept as a string in a module so that the bundled app (tsup, dist/main.js) serves it with no file
 * to find at run time. Written without backticks or `${`, so it can sit in a raw template literal.
 * @module
 */

/** The dashboard script. */
export const DASHBOARD_SCRIPT = String.raw`// handoff broker dashboard: polls the admin API with the token kept in sessionStorage, and
// subscribes over MQTT-over-WebSocket for the subscription tester. No framework, no build step.
(function () {
  "use strict";
  var TOKEN_KEY = "handoff-broker-admin-token";
  var POLL_MS = 1000;
  var $ = function (id) { return document.getElementById(id); };
  var token = sessionStorage.getItem(TOKEN_KEY);
  var previous = null;
  var timer = null;
  var lastTree = "";
  var websocket = null;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") node.textContent = attrs[key];
      else if (key === "class") node.className = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) { node.appendChild(child); });
    return node;
  }

  function api(method, path) {
    return fetch("/api/v1" + path, { method: method, headers: { authorization: "Bearer " + token }, cache: "no-store" }).then(function (res) {
      if (res.status === 401) { signOut("The token was refused."); throw new Error("unauthorized"); }
      return res.json().then(function (body) {
        if (!res.ok) throw new Error(body && body.error ? body.error : "HTTP " + res.status);
        return body;
      });
    });
  }

  function showError(text) { $("error").textContent = text || ""; }

  function signIn(value) {
    token = value;
    sessionStorage.setItem(TOKEN_KEY, value);
    $("login").hidden = true;
    $("main").hidden = false;
    poll();
    timer = setInterval(poll, POLL_MS);
  }

  function signOut(message) {
    token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    if (timer !== null) clearInterval(timer);
    timer = null;
    previous = null;
    $("main").hidden = true;
    $("login").hidden = false;
    $("login-message").textContent = message || "";
  }

  function rate(now, before, pick) {
    if (before === null || now.at <= before.at) return "…";
    var perSecond = (pick(now) - pick(before)) / ((now.at - before.at) / 1000);
    return perSecond.toFixed(1);
  }

  function renderStats(stats) {
    $("version").textContent = stats.version + " · up " + stats.uptimeSeconds + " s";
    $("connections").textContent = String(stats.connections);
    $("rate-in").textContent = rate(stats, previous, function (s) { return s.messages.received; });
    $("rate-out").textContent = rate(stats, previous, function (s) { return s.messages.sent; });
    $("queued").textContent = String(stats.queued);
    $("inflight").textContent = String(stats.inflight);
    $("sessions").textContent = String(stats.sessions);
    $("subscriptions").textContent = String(stats.subscriptions);
    $("retained").textContent = String(stats.retained);
    $("dropped").textContent = String(stats.dropped.total);
    var reasons = $("dropped-reasons");
    reasons.textContent = "";
    Object.keys(stats.dropped.byReason).forEach(function (reason) {
      var count = stats.dropped.byReason[reason];
      if (count > 0) reasons.appendChild(el("li", { text: reason + ": " + count }));
    });
    previous = stats;
    var ws = stats.websocket;
    $("tester-endpoint").textContent = ws ? "ws://" + location.hostname + ":" + ws.port + ws.path : "no WebSocket listener";
    $("tester-subscribe").disabled = !ws;
  }

  function renderClients(page) {
    var body = $("clients-body");
    body.textContent = "";
    page.clients.forEach(function (c) {
      var kick = el("button", { type: "button", class: "kick", text: "Kick" });
      kick.addEventListener("click", function () {
        kick.disabled = true;
        api("POST", "/clients/" + encodeURIComponent(c.clientId) + "/kick").then(poll, function (err) { showError(err.message); });
      });
      var since = c.connectedAt ? new Date(c.connectedAt).toLocaleTimeString() : "";
      var cells = [c.clientId, c.address, c.protocol, since, c.keepAlive + " s", c.username || "", String(c.inflight), String(c.queued), String(c.subscriptions)];
      var row = el("tr", { "data-client-id": c.clientId }, cells.map(function (text) { return el("td", { text: text }); }));
      row.appendChild(el("td", {}, [kick]));
      body.appendChild(row);
    });
    $("clients-empty").hidden = page.clients.length > 0;
    $("clients-more").hidden = page.next === null;
  }

  function renderTree(page) {
    var key = JSON.stringify(page);
    if (key === lastTree) return;
    lastTree = key;
    var root = { children: {}, message: null };
    page.messages.forEach(function (m) {
      var node = root;
      m.topic.split("/").forEach(function (level) {
        if (!node.children[level]) node.children[level] = { children: {}, message: null };
        node = node.children[level];
      });
      node.message = m;
    });
    function list(node, prefix) {
      var ul = el("ul", { class: "tree" });
      Object.keys(node.children).sort().forEach(function (level) {
        var child = node.children[level];
        var topic = prefix === null ? level : prefix + "/" + level;
        var li = el("li", { "data-topic": topic }, [el("span", { class: "level", text: level === "" ? "(empty)" : level })]);
        if (child.message) {
          var shown = child.message.payloadEncoding === "utf8" ? child.message.payload : "base64:" + child.message.payload;
          li.appendChild(el("span", { class: "payload", text: shown + (child.message.truncated ? "…" : "") }));
          li.appendChild(el("span", { class: "meta", text: "QoS " + child.message.qos + ", " + child.message.bytes + " B" }));
        }
        if (Object.keys(child.children).length > 0) li.appendChild(list(child, topic));
        ul.appendChild(li);
      });
      return ul;
    }
    var tree = $("retained-tree");
    tree.textContent = "";
    tree.appendChild(list(root, null));
    $("retained-empty").hidden = page.messages.length > 0;
    $("retained-more").hidden = page.next === null;
  }

  function poll() {
    if (token === null) return;
    var filter = $("retained-filter").value || "#";
    Promise.all([
      api("GET", "/stats"),
      api("GET", "/clients?limit=200"),
      api("GET", "/retained?limit=500&filter=" + encodeURIComponent(filter)),
    ]).then(function (results) {
      showError("");
      renderStats(results[0]);
      renderClients(results[1]);
      renderTree(results[2]);
    }, function (err) {
      if (err.message !== "unauthorized") showError(err.message);
    });
  }

  // A tiny MQTT 3.1.1 client over WebSocket: CONNECT, SUBSCRIBE at QoS 0, PUBLISH received, PINGREQ.
  var utf8 = new TextEncoder();
  var fromUtf8 = new TextDecoder();
  function mqttString(text) {
    var bytes = utf8.encode(text);
    return [bytes.length >> 8, bytes.length & 255].concat(Array.from(bytes));
  }
  function packet(first, body) {
    var length = body.length;
    var header = [first];
    do {
      var digit = length % 128;
      length = Math.floor(length / 128);
      header.push(length > 0 ? digit | 128 : digit);
    } while (length > 0);
    return new Uint8Array(header.concat(body));
  }
  function connectPacket(clientId, username, password) {
    var flags = 2 | (username ? 128 : 0) | (username && password ? 64 : 0);
    var body = mqttString("MQTT").concat([4, flags, 0, 30], mqttString(clientId));
    if (username) body = body.concat(mqttString(username));
    if (username && password) body = body.concat(mqttString(password));
    return packet(16, body);
  }

  function testerStatus(text) { $("tester-status").textContent = text; }

  function stopTester() {
    if (websocket !== null) websocket.close();
    websocket = null;
  }

  function startTester() {
    stopTester();
    var filter = $("tester-filter").value || "#";
    var url = $("tester-endpoint").textContent;
    var clientId = "dashboard-" + Math.random().toString(16).slice(2, 10);
    var socket = new WebSocket(url, "mqtt");
    var buffered = new Uint8Array(0);
    var ping = null;
    websocket = socket;
    socket.binaryType = "arraybuffer";
    testerStatus("connecting to " + url + " …");
    socket.onopen = function () { socket.send(connectPacket(clientId, $("tester-username").value, $("tester-password").value)); };
    socket.onclose = function () {
      if (ping !== null) clearInterval(ping);
      if (websocket === socket) { websocket = null; testerStatus("disconnected"); }
    };
    socket.onerror = function () { testerStatus("WebSocket error"); };
    socket.onmessage = function (event) {
      var chunk = new Uint8Array(event.data);
      var joined = new Uint8Array(buffered.length + chunk.length);
      joined.set(buffered);
      joined.set(chunk, buffered.length);
      buffered = joined;
      for (;;) {
        var length = 0, multiplier = 1, i = 1, complete = false;
        while (i < buffered.length && i <= 4) {
          var byte = buffered[i++];
          length += (byte & 127) * multiplier;
          multiplier *= 128;
          if ((byte & 128) === 0) { complete = true; break; }
        }
        if (!complete || buffered.length < i + length) return;
        handle(buffered[0], buffered.subarray(i, i + length));
        buffered = buffered.slice(i + length);
      }
    };
    function handle(first, body) {
      var type = first >> 4;
      if (type === 2) {
        if (body[1] !== 0) { testerStatus("refused by the broker (CONNACK return code " + body[1] + ")"); socket.close(); return; }
        socket.send(packet(130, [0, 1].concat(mqttString(filter), [0])));
        ping = setInterval(function () { socket.send(new Uint8Array([192, 0])); }, 20000);
      } else if (type === 9) {
        testerStatus(body[2] === 128 ? "subscription to " + filter + " refused" : "subscribed to " + filter + " as " + clientId);
      } else if (type === 3) {
        var qos = (first >> 1) & 3;
        var topicLength = (body[0] << 8) | body[1];
        var topic = fromUtf8.decode(body.subarray(2, 2 + topicLength));
        var offset = 2 + topicLength;
        if (qos > 0) {
          socket.send(packet(qos === 1 ? 64 : 80, [body[offset], body[offset + 1]]));
          offset += 2;
        }
        received(topic, fromUtf8.decode(body.subarray(offset)), (first & 1) === 1);
      } else if (type === 6) {
        socket.send(packet(112, [body[0], body[1]]));
      }
    }
  }

  function received(topic, payload, retain) {
    var list = $("tester-messages");
    var item = el("li", {}, [
      el("span", { class: "time", text: new Date().toLocaleTimeString() }),
      el("span", { class: "topic", text: topic }),
      el("span", { class: "payload", text: payload }),
    ]);
    if (retain) item.appendChild(el("span", { class: "meta", text: "retained" }));
    list.insertBefore(item, list.firstChild);
    while (list.childNodes.length > 100) list.removeChild(list.lastChild);
  }

  $("login-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var value = $("token").value.trim();
    if (value) signIn(value);
  });
  $("sign-out").addEventListener("click", function () { stopTester(); signOut(""); });
  $("tester-form").addEventListener("submit", function (event) { event.preventDefault(); startTester(); });
  $("tester-stop").addEventListener("click", stopTester);
  $("retained-form").addEventListener("submit", function (event) { event.preventDefault(); lastTree = ""; poll(); });
  if (token) signIn(token); else signOut("");
})();
`;
