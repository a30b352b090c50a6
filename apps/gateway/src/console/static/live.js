// Live updates: the console's event stream (the gateway's SSE events) makes each region marked
// `data-live` reload itself through htmx (its hx-get), at most every 300 ms.
(() => {
  const events = new EventSource("/console/events");
  let timer;
  const refresh = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      for (const el of document.querySelectorAll("[data-live]")) window.htmx?.trigger(el, "oa:refresh");
    }, 300);
  };
  for (const type of ["call.settled", "run.started", "run.finished", "approval.requested", "approval.decided"])
    events.addEventListener(type, refresh);
  window.addEventListener("pagehide", () => events.close());
})();
