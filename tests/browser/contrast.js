// Every visible text of `root` against its effective background: the WCAG contrast ratio of its
// colour (with opacity) composited over the backgrounds behind it. Returns the texts below `min`.
(args) => {
  const [selector, min] = args;
  const root = document.querySelector(selector);
  if (!root) return { checked: 0, bad: [{ text: "no " + selector, ratio: 0 }] };
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => {
    const a = top[3] + bottom[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    return [0, 1, 2].map((i) => (top[i] * top[3] + bottom[i] * bottom[3] * (1 - top[3])) / a).concat([a]);
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let bg = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const bad = [];
  let checked = 0;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    if (!text) continue;
    const el = node.parentElement;
    if (!el || el.closest("style, script, option, [hidden]")) continue;
    const rects = el.getClientRects();
    if (!rects.length) continue;
    const style = getComputedStyle(el);
    if (style.visibility !== "visible") continue;
    // disabled controls are exempt (WCAG 1.4.3: inactive user interface components), also
    // those marked inactive for assistive technology only (DataTables' paging buttons when the
    // table fits on one page)
    if (el.closest('button:disabled, .mod-disabled, [disabled], [aria-disabled="true"]')) continue;
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const bg = background(el);
    const fg = parse(style.color);
    fg[3] *= opacity;
    const shown = over(fg, bg);
    const l1 = lum(shown), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    checked++;
    if (ratio < min) bad.push({ text: text.slice(0, 60), ratio: Math.round(ratio * 100) / 100, color: style.color, cls: el.className });
  }
  return { checked, bad };
}
