// Live updates: the console's event stream (the gateway's SSE events) makes each region marked
// `data-live` reload itself through htmx (its hx-get), at most every 300 ms, and refreshes the
// header's count of pending approvals.
(() => {
  const events = new EventSource("/console/events");
  let timer;
  const refreshCount = async () => {
    const badge = document.getElementById("pending-count");
    if (!badge) return;
    const res = await fetch("/console/approvals/count", { credentials: "same-origin" });
    if (!res.ok) return;
    const n = Number(await res.text());
    badge.textContent = String(n);
    badge.classList.toggle("waiting", n > 0);
    badge.title = badge.ariaLabel = `${n} waiting for a decision`;
  };
  const refresh = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      for (const el of document.querySelectorAll("[data-live]")) window.htmx?.trigger(el, "oa:refresh");
      refreshCount().catch(() => {});
    }, 300);
  };
  for (const type of ["call.settled", "run.started", "run.finished", "approval.requested", "approval.decided"])
    events.addEventListener(type, refresh);
  window.addEventListener("pagehide", () => events.close());
  // Filter forms are plain GET forms (the URL holds the filter); a changed select applies at once,
  // and empty fields stay out of the URL so a shared link shows only the filters in use. The form is
  // autocomplete="off": otherwise going back restores the fields as last typed, not as the URL says.
  for (const form of document.querySelectorAll("form[data-autosubmit]")) {
    form.addEventListener("change", (e) => {
      if (e.target instanceof HTMLSelectElement) form.requestSubmit();
    });
    form.addEventListener("formdata", (e) => {
      for (const [name, value] of [...e.formData]) if (value === "") e.formData.delete(name);
    });
  }
})();
