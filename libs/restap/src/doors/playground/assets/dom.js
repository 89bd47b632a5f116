// A tiny element builder: the page never assigns HTML strings, so nothing the agent or the feed
// sends can become markup.

/** h('button', { type: 'button', onclick }, 'Send') */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else if (name in el && typeof value !== 'string') el[name] = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

export function $(id) {
  return document.getElementById(id);
}

/** A button that copies `text()` to the clipboard and says so. */
export function copyButton(label, text) {
  const button = h('button', { type: 'button', class: 'copy' }, label);
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text());
      flash(button, 'Copied');
    } catch {
      flash(button, 'Select and copy');
    }
  });
  return button;
}

function flash(button, message) {
  const original = button.textContent;
  button.textContent = message;
  setTimeout(() => (button.textContent = original), 1200);
}

/** Pretty JSON for display. */
export function pretty(value) {
  return JSON.stringify(value, null, 2);
}

/** A shell single-quoted string. */
export function shellQuote(text) {
  return `'${String(text).replace(/'/g, `'\\''`)}'`;
}
