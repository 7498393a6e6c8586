// Fleet page: the live feed's socket state, Pause/Resume of incoming rows, and a bounded feed.
// Rows arrive from /ws/fleet/ and are inserted by the htmx ws extension (hx-swap-oob afterbegin).
(() => {
  const MAX_ROWS = 300;
  let opens = 0;

  const feed = () => document.getElementById("event-feed");
  const pauseButton = () => document.getElementById("feed-pause");

  function setStatus(state, text) {
    const el = document.getElementById("ws-status");
    if (!el) return;
    el.dataset.state = state;
    el.textContent = text;
  }

  function paused() {
    const list = feed();
    return Boolean(list && list.classList.contains("paused"));
  }

  function showQueued() {
    const note = document.getElementById("feed-queued");
    const list = feed();
    if (!note || !list) return;
    const queued = paused() ? list.querySelectorAll(":scope > li:not([data-shown])").length : 0;
    document.body.dataset.queued = String(queued);
    note.hidden = !paused();
    note.textContent = queued
      ? `Paused: ${queued} new event${queued === 1 ? "" : "s"} waiting. Resume to show them.`
      : "Paused: new events are held until you resume.";
  }

  function afterRows() {
    const list = feed();
    if (!list) return;
    // A row can arrive twice (the feed is reloaded after a reconnect); keep the first copy only.
    const seen = new Set();
    for (const li of Array.from(list.children)) {
      if (seen.has(li.id)) li.remove();
      else seen.add(li.id);
    }
    while (list.children.length > MAX_ROWS) list.lastElementChild.remove();
    showQueued();
  }

  function setButton(button, icon, label) {
    button.querySelector(".icon").textContent = icon;
    button.querySelector(".label").textContent = label;
  }

  function togglePause() {
    const list = feed();
    const button = pauseButton();
    if (!list || !button) return;
    if (paused()) {
      list.classList.remove("paused");
      button.setAttribute("aria-pressed", "false");
      setButton(button, "‖", "Pause");
      document.body.dataset.paused = "false";
    } else {
      for (const li of list.children) li.dataset.shown = "";
      list.classList.add("paused");
      button.setAttribute("aria-pressed", "true");
      setButton(button, "▶", "Resume");
      document.body.dataset.paused = "true";
    }
    showQueued();
  }

  document.addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.closest("#feed-pause")) togglePause();
  });

  document.body.addEventListener("htmx:wsOpen", () => {
    opens += 1;
    // Shown again by the server's first frame if the live feed is still unavailable.
    const unavailable = document.getElementById("live-unavailable");
    if (unavailable) unavailable.hidden = true;
    document.body.dataset.ws = "open";
    setStatus("open", "● live");
    if (opens > 1 && !paused() && window.htmx) {
      // Events sent while the socket was down never reach it: reload the feed once it is back.
      window.htmx.ajax("GET", window.location.pathname + window.location.search, {
        target: "#event-feed",
        swap: "outerHTML",
      });
    }
  });
  document.body.addEventListener("htmx:wsClose", () => {
    document.body.dataset.ws = "closed";
    setStatus("closed", "○ disconnected, retrying…");
  });
  document.body.addEventListener("htmx:wsAfterMessage", () => {
    const first = feed() && feed().firstElementChild;
    if (first && !first.classList.contains("fresh")) first.classList.add("fresh");
    afterRows();
  });

  // The alert strip refreshes every 5 s: not while the operator is using it (a mute menu open, focus
  // on a button), and an opened "N more" list stays open across refreshes.
  let moreOpen = false;
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    const strip = document.getElementById("fleet-alerts");
    if (strip && event.detail.elt === strip && strip.contains(document.activeElement)) {
      event.preventDefault();
    }
  });
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    if (event.detail.target && event.detail.target.id === "fleet-alerts") {
      moreOpen = Boolean(document.querySelector("#fleet-alerts details.alert-more[open]"));
    }
  });
  document.body.addEventListener("htmx:afterSettle", () => {
    const more = document.querySelector("#fleet-alerts details.alert-more");
    if (more && moreOpen) more.open = true;
    moreOpen = false;
  });
})();
