/**
 * Building the page's elements. Every piece of text, agents' output above
 * all, goes in as text (`textContent`), never as HTML: a `<script>` a worker
 * prints is shown, not run.
 */

type Child = Node | string | null | undefined | false;

/** An element with classes, attributes and children (strings become text). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: {
    class?: string;
    attrs?: Record<string, string>;
    text?: string;
    on?: Partial<Record<'click' | 'submit' | 'input', (e: Event) => void>>;
  } = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  for (const [name, value] of Object.entries(props.attrs ?? {}))
    node.setAttribute(name, value);
  if (props.text !== undefined) node.textContent = props.text;
  for (const [name, handler] of Object.entries(props.on ?? {}))
    if (handler) node.addEventListener(name, handler);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(
      typeof child === 'string' ? document.createTextNode(child) : child,
    );
  }
  return node;
}

/** Replace an element's children. */
export function fill(node: Element, ...children: Child[]): void {
  node.replaceChildren(
    ...children.filter((c): c is Node | string => Boolean(c) || c === ''),
  );
}

/** `3s`, `4m`, `2h`, `5d`. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** A duration in ms for people: `850 ms`, `3.2 s`, `4m`. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '–';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return formatAge(ms);
}

/** `14:03:07` of an ISO time. */
export function formatClock(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleTimeString([], { hour12: false });
}

/**
 * Text safe for the terminal view: control characters (ESC above all, so
 * no escape sequence, OSC 8 link or title change) and the C1 range are
 * removed; the server has removed them already, this is the second lock.
 */
export function plainLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g, '');
}
