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
