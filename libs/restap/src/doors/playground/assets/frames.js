// The raw-frames panel: every request, status line, JSON body and SSE frame (event, id, data)
// with its time since the page loaded, shown when "Raw frames" is on.
import { $, h } from './dom.js';
import { onFrame } from './http.js';

const KEEP = 500;

export function setupFrames() {
  const panel = $('frames');
  const log = $('frame-log');
  const toggle = $('raw-toggle');
  let last = 0;
  onFrame(({ at, kind, text }) => {
    const gap = last ? `+${Math.round(at - last)}ms` : '';
    last = at;
    log.append(h('li', { class: `frame ${kind}` },
      h('span', { class: 'at' }, `${(at / 1000).toFixed(3)}s ${gap}`), h('span', { class: 'kind' }, kind), h('pre', {}, text)));
    while (log.children.length > KEEP) log.firstElementChild.remove();
    if (!panel.hidden) log.lastElementChild.scrollIntoView({ block: 'nearest' });
  });
  toggle.addEventListener('change', () => {
    panel.hidden = !toggle.checked;
    document.body.classList.toggle('with-frames', toggle.checked);
  });
  $('frames-clear').addEventListener('click', () => log.replaceChildren());
}
