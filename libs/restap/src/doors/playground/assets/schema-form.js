// A form generated from a JSON Schema (the capability's input_schema and its parameters), and a
// validator for the same schema subset, so mistakes are caught in the browser before sending.
import { h } from './dom.js';

let fieldCounter = 0;

/** Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`) within `root`. */
export function deref(schema, root) {
  let current = schema ?? {};
  for (let hops = 0; current.$ref && hops < 32; hops++) {
    const path = current.$ref.replace(/^#\//, '').split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    current = path.reduce((node, key) => (node ? node[key] : undefined), root) ?? {};
  }
  return current;
}

function typeOf(schema) {
  if (Array.isArray(schema.enum)) return 'enum';
  if ('const' in schema) return 'const';
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type) return type;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return 'json';
}

/**
 * Builds the editor of one value: `{ el, read(), showErrors(map) }`. `path` names the value in
 * error messages (`address.city`, `tags[0]`).
 */
export function editor(schema, root, path, { required = false, label } = {}) {
  const s = deref(schema, root);
  const type = typeOf(s);
  const id = `f${++fieldCounter}`;
  const errorEl = h('p', { class: 'field-error', id: `${id}-err`, role: 'alert' });
  const title = label ?? s.title ?? path ?? 'value';
  const caption = h('span', { class: 'label' }, title, required ? h('abbr', { title: 'required', class: 'req' }, ' *') : null,
    s.format ? h('span', { class: 'format' }, ` ${s.format}`) : null);
  const hint = s.description ? h('span', { class: 'hint' }, s.description) : null;

  if (type === 'object') {
    const props = Object.entries(s.properties ?? {});
    const req = new Set(s.required ?? []);
    const children = props.map(([name, prop]) => [name, editor(prop, root, path ? `${path}.${name}` : name, { required: req.has(name), label: name })]);
    const el = h('fieldset', { class: 'object' }, path ? h('legend', {}, caption) : null, hint, children.map(([, c]) => c.el), errorEl);
    return {
      el,
      read() {
        const value = {};
        for (const [name, child] of children) {
          const v = child.read();
          if (v !== undefined) value[name] = v;
        }
        return value;
      },
      errors: collect(errorEl, path, children.map(([, c]) => c)),
    };
  }
  if (type === 'array') {
    const itemSchema = s.items ?? {};
    const list = h('ol', { class: 'array-items' });
    const items = [];
    const add = (initial) => {
      const child = editor(itemSchema, root, `${path}[${items.length}]`, { label: `item ${items.length + 1}` });
      const row = h('li', {}, child.el, h('button', { type: 'button', class: 'link', onclick: () => {
        items.splice(items.indexOf(child), 1);
        row.remove();
      } }, 'Remove'));
      if (initial !== undefined && child.set) child.set(initial);
      items.push(child);
      list.append(row);
    };
    const el = h('fieldset', { class: 'array' }, h('legend', {}, caption), hint, list,
      h('button', { type: 'button', class: 'add', onclick: () => add() }, `Add ${path.split('.').pop()} item`), errorEl);
    if (Array.isArray(s.default)) s.default.forEach(add);
    return { el, read: () => (items.length || required ? items.map((c) => c.read()) : undefined), errors: collect(errorEl, path, items) };
  }

  let control;
  let read;
  if (type === 'enum') {
    control = h('select', { id, name: path }, required ? null : h('option', { value: '' }, '—'),
      s.enum.map((v, i) => h('option', { value: String(i) }, JSON.stringify(v))));
    read = () => (control.value === '' ? undefined : s.enum[Number(control.value)]);
  } else if (type === 'boolean') {
    if (required) {
      control = h('input', { id, name: path, type: 'checkbox', checked: s.default === true });
      read = () => control.checked;
    } else {
      control = h('select', { id, name: path }, h('option', { value: '' }, '—'), h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false'));
      read = () => (control.value === '' ? undefined : control.value === 'true');
    }
  } else if (type === 'number' || type === 'integer') {
    control = h('input', { id, name: path, type: 'text', inputmode: type === 'integer' ? 'numeric' : 'decimal', autocomplete: 'off' });
    read = () => (control.value.trim() === '' ? undefined : Number(control.value.trim()));
  } else if (type === 'string') {
    const long = !s.format && !s.enum && (s.maxLength === undefined || s.maxLength > 200);
    const inputType = { email: 'email', uri: 'url', url: 'url', date: 'date' }[s.format] ?? 'text';
    control = long ? h('textarea', { id, name: path, rows: 2 }) : h('input', { id, name: path, type: inputType, autocomplete: 'off' });
    read = () => (control.value === '' ? undefined : control.value);
  } else if (type === 'const') {
    control = h('input', { id, name: path, type: 'text', readonly: true, value: JSON.stringify(s.const) });
    read = () => s.const;
  } else {
    control = h('textarea', { id, name: path, rows: 2, placeholder: 'JSON' });
    read = () => {
      if (control.value.trim() === '') return undefined;
      try {
        return JSON.parse(control.value);
      } catch {
        return { __invalidJson: control.value };
      }
    };
  }
  control.setAttribute('aria-describedby', errorEl.id);
  if (required) control.setAttribute('aria-required', 'true');
  const example = s.examples?.[0] ?? s.example;
  if (example !== undefined && control.placeholder === '') control.placeholder = typeof example === 'string' ? example : JSON.stringify(example);
  const set = (value) => {
    if (control.type === 'checkbox') control.checked = Boolean(value);
    else control.value = typeof value === 'string' ? value : JSON.stringify(value);
  };
  if (s.default !== undefined && type !== 'enum' && type !== 'boolean') set(s.default);
  const el = h('div', { class: 'field' }, h('label', { for: id }, caption), hint, control, errorEl);
  return { el, read, set, errors: collect(errorEl, path, [], control) };
}

/** Shows the messages whose path is this field's (or hands them to its children); returns how many it showed. */
function collect(errorEl, path, children, control) {
  return (messages) => {
    const mine = messages.filter((m) => m.path === path).map((m) => m.message);
    errorEl.textContent = mine.join('; ');
    if (control) control.setAttribute('aria-invalid', mine.length ? 'true' : 'false');
    return mine.length + children.reduce((n, child) => n + child.errors(messages), 0);
  };
}

const FORMATS = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
  uri: /^[a-z][a-z0-9+.-]*:\S+$/i,
};

/** Checks `value` against the schema subset the forms produce; returns [{ path, message }]. */
export function validate(schema, root, value, path = '', out = []) {
  const s = deref(schema, root);
  if (value === undefined) return out;
  if (value && typeof value === 'object' && '__invalidJson' in value) {
    out.push({ path, message: 'is not valid JSON' });
    return out;
  }
  if (Array.isArray(s.enum) && !s.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))) {
    out.push({ path, message: `must be one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}` });
  }
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value)) out.push({ path, message: `must be ${JSON.stringify(s.const)}` });
  const types = s.type === undefined ? [] : [].concat(s.type);
  if (types.length && !types.some((t) => matchesType(t, value))) {
    out.push({ path, message: `must be ${types.join(' or ')}` });
    return out;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (s.minLength !== undefined && length < s.minLength) out.push({ path, message: s.minLength === 1 ? 'must not be empty' : `must be at least ${s.minLength} characters` });
    if (s.maxLength !== undefined && length > s.maxLength) out.push({ path, message: `must be at most ${s.maxLength} characters` });
    if (s.pattern && !safeRegExp(s.pattern).test(value)) out.push({ path, message: `must match ${s.pattern}` });
    if (FORMATS[s.format] && !FORMATS[s.format].test(value)) out.push({ path, message: `must be a valid ${s.format}` });
  }
  if (typeof value === 'number') {
    if (Number.isNaN(value)) out.push({ path, message: 'must be a number' });
    if (s.minimum !== undefined && value < s.minimum) out.push({ path, message: `must be ≥ ${s.minimum}` });
    if (s.maximum !== undefined && value > s.maximum) out.push({ path, message: `must be ≤ ${s.maximum}` });
    if (s.exclusiveMinimum !== undefined && value <= s.exclusiveMinimum) out.push({ path, message: `must be > ${s.exclusiveMinimum}` });
    if (s.exclusiveMaximum !== undefined && value >= s.exclusiveMaximum) out.push({ path, message: `must be < ${s.exclusiveMaximum}` });
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) out.push({ path, message: `needs at least ${s.minItems} items` });
    if (s.maxItems !== undefined && value.length > s.maxItems) out.push({ path, message: `takes at most ${s.maxItems} items` });
    if (s.items) value.forEach((item, i) => validate(s.items, root, item, `${path}[${i}]`, out));
  } else if (value && typeof value === 'object') {
    for (const name of s.required ?? []) {
      if (value[name] === undefined) out.push({ path: path ? `${path}.${name}` : name, message: 'is required' });
    }
    for (const [name, prop] of Object.entries(s.properties ?? {})) validate(prop, root, value[name], path ? `${path}.${name}` : name, out);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      for (const [name, v] of Object.entries(value)) {
        if (!(s.properties ?? {})[name]) validate(s.additionalProperties, root, v, path ? `${path}.${name}` : name, out);
      }
    }
  }
  return out;
}

function matchesType(type, value) {
  switch (type) {
    case 'string': return typeof value === 'string';
    case 'integer': return Number.isInteger(value);
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'boolean': return typeof value === 'boolean';
    case 'array': return Array.isArray(value);
    case 'object': return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'null': return value === null;
    default: return true;
  }
}

function safeRegExp(pattern) {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return { test: () => true };
  }
}
