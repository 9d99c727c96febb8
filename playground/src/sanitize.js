// What the worker sends, made safe to put in the page: diagrams and the step-through page.
//
// NOTE [The worker's answers are untrusted]
// The worker runs whatever code is in the editor, which may come from a shared link, and that
// code can change anything in the worker's Python (`_repr_svg_`, `show`, even this page's
// playground module), so nothing the worker answers is trusted.  Text (the output, errors, the
// grader's table, lesson prose, menus) goes in as textContent.  Diagrams are markup, so DOMPurify
// keeps only SVG drawing elements and attributes: no script, no event handler, no
// foreignObject, no style, no image, and no link but to a "#fragment" of the picture.  The
// step-through page is sanitized the same way (its HTML and SVG both), its own script and style
// left out: the frame gets the page's copies of them (stepper.js and stepper.css, from this
// origin) and the frames' data rebuilt from the numbers and pictures it should hold, each picture
// sanitized too.  The Content-Security-Policy in index.html is the second wall: no inline script
// runs here at all, and no inline style element applies (NOTE [The page's policy] in index.html).
import DOMPurify from "dompurify";

const purify = DOMPurify(window);
purify.addHook("uponSanitizeAttribute", (_node, data) => {
  if ((data.attrName === "href" || data.attrName === "xlink:href")
      && !data.attrValue.trim().startsWith("#")) {
    data.keepAttr = false;  // a link only within the picture: no javascript:, data: or other page
  }
});

const SVG_ONLY = {
  USE_PROFILES: { svg: true },
  FORBID_TAGS: ["style", "image"],
  FORBID_ATTR: ["style"],
};

// The step-through page's elements (micrograd2/viz/stepper.py writes them), and SVG's.
const STEP_PAGE = {
  WHOLE_DOCUMENT: true,
  ALLOWED_TAGS: ["html", "head", "title", "body", "header", "h1", "button", "span", "p",
    "section", "div", "ul", "li", "pre", "svg", "g", "polygon", "polyline", "path",
    "ellipse", "circle", "line", "rect", "text", "tspan", "a"],
  FORBID_ATTR: ["style"],
  RETURN_DOM: true,
};

// A diagram as a fragment for the page: what DOMPurify keeps of `markup` as SVG.
export function cleanSvg(markup) {
  return purify.sanitize(String(markup), { ...SVG_ONLY, RETURN_DOM_FRAGMENT: true });
}

// The inside of one SVG group (a node or an edge of the step-through page's pictures), sanitized.
function cleanGroup(inner) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg"><g>${String(inner)}</g></svg>`;
  const group = purify.sanitize(svg, { ...SVG_ONLY, RETURN_DOM_FRAGMENT: true })
    .querySelector("g");
  return group ? group.innerHTML : "";
}

const isIndex = (n) => Number.isInteger(n) && n >= -1;

// The frames' data (the JSON of #stills), rebuilt from what it should hold: pictures sanitized,
// numbers that are numbers, names that are strings; null if it is not that.
function cleanStills(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (!data || !Array.isArray(data.passes) || !Array.isArray(data.frames)) return null;
  const passes = data.passes.map((pass) => {
    const forms = {};
    for (const [key, list] of Object.entries(pass?.forms ?? {})) {
      if (/^\d+$/.test(key) && Array.isArray(list)) forms[key] = list.map(cleanGroup);
    }
    return { forms };
  });
  const frames = data.frames.map((f) => (Array.isArray(f) && f.length === 4 && isIndex(f[0])
    && Array.isArray(f[2]) && f[2].every(isIndex) && isIndex(f[3])
    ? [f[0], String(f[1]), f[2], f[3]] : null));
  return { passes, frames, minTextPx: Number(data.minTextPx) };
}

// The step-through page's HTML (from the worker) as the frame's srcdoc: sanitized, with this
// origin's copies of its script and style and its data rebuilt (NOTE [The worker's answers are
// untrusted]).
export function stepsPage(html) {
  const raw = new DOMParser().parseFromString(String(html), "text/html");  // inert: runs nothing
  const stills = cleanStills(raw.getElementById("stills")?.textContent ?? "");
  const page = purify.sanitize(String(html), STEP_PAGE);
  const body = page.querySelector("body") ?? page;
  const style = page.ownerDocument.createElement("link");
  style.rel = "stylesheet";
  style.href = "stepper.css";
  (page.querySelector("head") ?? page).append(style);
  if (stills) {
    const data = page.ownerDocument.createElement("script");
    data.type = "application/json";
    data.id = "stills";
    data.textContent = JSON.stringify(stills).replace(/</g, "\\u003c");
    const script = page.ownerDocument.createElement("script");
    script.src = "stepper.js";
    body.append(data, script);
  }
  return `<!DOCTYPE html>\n${page.outerHTML}`;
}
