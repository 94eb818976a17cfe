// gobblet-companion's page script: plain JavaScript, no build step. Each page is server-rendered;
// this file makes it live: the event stream on the game page, the buttons' requests (with the
// CSRF token from the page's <meta>), the replay slider, Cups' taps, the camera preview and the wizard.
"use strict";

const csrf = () => document.querySelector('meta[name="csrf-token"]').content;

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "X-CSRF-Token": csrf(), "Content-Type": "application/json" },
    body: JSON.stringify(body || {}),
    credentials: "same-origin",
  });
  let data = {};
  try { data = await response.json(); } catch (error) { data = { message: await response.text() }; }
  return { ok: response.ok && data.ok !== false, ...data };
}

function say(text) {
  const answer = document.getElementById("answer");
  if (answer) answer.textContent = text;
}

// Tapping a square shows its whole stack, hidden cups included.
function watchStacks() {
  const board = document.getElementById("board");
  const out = document.getElementById("stack");
  if (!board || !out) return;
  const show = (event) => {
    const cell = event.target.closest("[data-square]");
    if (cell) out.textContent = `${cell.dataset.square}: ${cell.dataset.stack}`;
  };
  board.addEventListener("click", show);
  board.addEventListener("keydown", (event) => { if (event.key === "Enter") show(event); });
}

// ----- pairing -----
function pairPage() {
  const form = document.getElementById("pair");
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const status = document.getElementById("pair-status");
    const button = form.querySelector("button");
    button.disabled = true;
    status.textContent = "Now press the button on the device (30 seconds)…";
    const response = await fetch("/pair", {
      method: "POST", headers: { "X-CSRF-Token": csrf() }, credentials: "same-origin",
    });
    let data = {};
    try { data = await response.json(); } catch (error) { data = { message: await response.text() }; }
    if (data.paired) {
      status.textContent = "Paired.";
      window.location.assign("/");
    } else {
      status.textContent = data.message || "Not paired: try again.";
      button.disabled = false;
    }
  });
}

// ----- the live game -----
function formatClock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? `${h}:${String(m).padStart(2, "0")}` : `${m}`) + `:${String(r).padStart(2, "0")}`;
}

function livePage() {
  const live = document.getElementById("live");
  if (!live) return;
  const clock = document.getElementById("clock");
  const tick = () => {
    const started = parseFloat(clock.dataset.started);
    const ended = parseFloat(clock.dataset.ended);
    clock.textContent = isNaN(started) ? "0:00" : formatClock((isNaN(ended) ? Date.now() / 1000 : ended) - started);
  };
  setInterval(tick, 1000);
  tick();
  const apply = (state) => {
    document.getElementById("board").innerHTML = state.svg;
    document.getElementById("title").textContent = state.title;
    document.getElementById("turn").textContent = state.turn_text;
    document.getElementById("last").textContent = state.last_move || "-";
    document.getElementById("panel").textContent = state.panel || "";
    const alert = document.getElementById("alert");
    alert.textContent = state.alert || "";
    alert.hidden = !state.alert;
    document.getElementById("takeback").disabled = !state.takeback_offered;
    document.getElementById("accept").hidden = !state.can_accept;
    document.getElementById("hint").disabled = state.over;
    clock.dataset.started = state.started || "";
    clock.dataset.ended = state.ended || "";
    live.dataset.version = state.version;
    tick();
  };
  const events = document.getElementById("events");
  const source = new EventSource(`/events?after=${live.dataset.after || 0}`);
  source.addEventListener("state", (message) => apply(JSON.parse(message.data)));
  source.addEventListener("referee", (message) => {
    const event = JSON.parse(message.data);
    const item = document.createElement("li");
    item.className = `ev ${event.type}`;
    item.dataset.n = event.n;
    const time = document.createElement("time");
    time.textContent = new Date(event.timestamp * 1000).toTimeString().slice(0, 8);
    item.append(time, ` ${event.text}`);
    events.prepend(item);
  });
  for (const button of live.querySelectorAll("button[data-action]")) {
    button.addEventListener("click", async () => {
      const answer = await post(button.dataset.action);
      say(answer.message || (answer.ok ? "done" : "refused"));
    });
  }
  const form = document.getElementById("new-game");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form).entries());
    const answer = await post(form.dataset.action, data);
    say(answer.message);
  });
}

// ----- the replay -----
function replayPage() {
  const replay = document.getElementById("replay");
  if (!replay) return;
  const slider = document.getElementById("slider");
  const picture = document.getElementById("snapshot");
  let asked = 0;
  slider.addEventListener("input", async () => {
    const ply = slider.value;
    const ticket = ++asked;
    document.getElementById("ply").textContent = ply;
    const response = await fetch(`/games/${replay.dataset.game}/ply/${ply}`, { credentials: "same-origin" });
    if (!response.ok || ticket !== asked) return;
    const view = await response.json();
    document.getElementById("board").innerHTML = view.svg;
    document.getElementById("move").textContent = view.move_text;
    document.getElementById("ply-events").innerHTML = view.events_html;
    picture.hidden = !view.snapshot;
    if (view.snapshot) picture.src = `/games/${replay.dataset.game}/snapshot/${view.snapshot_ply}.jpg`;
  });
  // the review's marked moves (graph dots and buttons) jump the replay to the position after them
  for (const mark of document.querySelectorAll("#review [data-ply]")) {
    mark.addEventListener("click", () => {
      slider.value = mark.dataset.ply;
      slider.dispatchEvent(new Event("input"));
      replay.scrollIntoView({ behavior: "smooth", block: "start" });
    });
  }
}

// ----- Cups, played by tapping -----
function cupsPage() {
  const section = document.getElementById("cups");
  if (!section) return;
  const show = (view) => {
    document.getElementById("board").innerHTML = view.svg;
    document.getElementById("cups-status").textContent = view.status;
    document.getElementById("cups-moves").textContent = view.moves;
    document.getElementById("cups-hint").textContent = view.hint;
  };
  const send = async (url, body) => {
    const answer = await post(url, body);
    if (answer.ok) { show(answer); say(""); } else say(answer.message || "refused");
  };
  const board = document.getElementById("board");
  const tapped = (event) => {
    const target = event.target.closest("[data-move]");
    if (target) send("/api/cups/move", { move: target.dataset.move });
  };
  board.addEventListener("click", tapped);
  board.addEventListener("keydown", (event) => { if (event.key === "Enter") tapped(event); });
  for (const button of section.querySelectorAll("button[data-action]")) {
    button.addEventListener("click", () => send(button.dataset.action));
  }
  const form = document.getElementById("cups-new");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send(form.dataset.action, Object.fromEntries(new FormData(form).entries()));
  });
}

// ----- the camera -----
function cameraPage() {
  const image = document.getElementById("preview");
  if (!image) return;
  const facts = document.getElementById("preview-facts");
  const refresh = async () => {
    const next = new Image();
    next.onload = () => { image.src = next.src; setTimeout(refresh, 400); };
    next.onerror = () => setTimeout(refresh, 2000);
    next.src = `/camera/preview.jpg?t=${Date.now()}`;
    try {
      const response = await fetch("/camera/preview.jpg?facts=1", { credentials: "same-origin" });
      if (response.ok) {
        const data = await response.json();
        const sure = data.readings.filter((r) => r[2] >= 0.9).length;
        facts.textContent = data.problem ||
          `markers ${data.markers.join(", ") || "none"} · ${sure}/${data.readings.length} squares read surely` +
          (data.hands ? " · hand over the board" : "");
      }
    } catch (error) { /* the next refresh tries again */ }
  };
  refresh();
  for (const button of document.querySelectorAll("#wizard button[data-action]")) {
    button.addEventListener("click", async () => {
      button.disabled = true;
      say("working…");
      const answer = await post(button.dataset.action);
      if (answer.ok || answer.step) window.location.reload();
      else { say(answer.message); button.disabled = false; }
    });
  }
}

document.addEventListener("DOMContentLoaded", () => {
  watchStacks();
  pairPage();
  livePage();
  replayPage();
  cupsPage();
  cameraPage();
});
