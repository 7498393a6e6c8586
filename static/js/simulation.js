// Keyboard on the simulation screen: ←/→ previous/next call, d = next call where something was dropped.
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (target instanceof HTMLElement && target.closest("input, select, textarea")) return;
  const link = document.querySelector(`#sim-body [data-key="${event.key}"]`);
  if (link) {
    event.preventDefault();
    // htmx wires up swapped-in links only when they settle (~20 ms later); a key pressed in between
    // (a held arrow key repeats faster) would otherwise follow the plain href and reload the page.
    if (window.htmx) window.htmx.process(link);
    link.click();
  }
});

// Knob re-simulation: count the seconds while the replay runs (the estimate beside it says how long to expect).
let progressTimer = null;
document.addEventListener("htmx:beforeRequest", (event) => {
  if (!(event.target instanceof HTMLElement) || event.target.id !== "sim-controls") return;
  const elapsed = document.getElementById("sim-progress-elapsed");
  if (!elapsed) return;
  const started = performance.now();
  clearInterval(progressTimer);
  elapsed.textContent = "0.0 s";
  progressTimer = setInterval(() => {
    elapsed.textContent = `${((performance.now() - started) / 1000).toFixed(1)} s`;
  }, 200);
});
document.addEventListener("htmx:afterRequest", (event) => {
  if (event.target instanceof HTMLElement && event.target.id === "sim-controls") clearInterval(progressTimer);
});
