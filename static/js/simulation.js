// Keyboard on the simulation screen: ←/→ previous/next call, d = next call where something was dropped.
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (target instanceof HTMLElement && target.closest("input, select, textarea")) return;
  const link = document.querySelector(`#sim-body [data-key="${event.key}"]`);
  if (link) {
    event.preventDefault();
    link.click();
  }
});
