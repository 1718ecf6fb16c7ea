// Reads a PDF's pages as text for the Documents panel, with pdf.js (the pdfjs-dist package,
// copied beside this file by scripts/copy-pdf.sh). Fetched the first time a PDF is added:
// nothing of it is in the page's first load. pdf.js parses in a worker of its own; nothing in
// the file is run (no scripts, no fonts loaded, no eval), and only text is taken from it.

let lib;

/** Loads pdf.js once. */
async function pdfjs() {
  if (!lib) {
    lib = await import('./pdf.js');
    lib.GlobalWorkerOptions.workerSrc = new URL('./pdf.worker.js', import.meta.url).href;
  }
  return lib;
}

/** The text of one page: pdf.js's runs joined, a line break where the page has one. */
function pageText(content) {
  let out = '';
  for (const item of content.items) {
    if (typeof item.str !== 'string') continue;
    out += item.str;
    if (item.hasEOL) out += '\n';
  }
  return out.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n');
}

/**
 * The text of every page of `bytes` (a Uint8Array), page 1 first; `onPage(done, of)` after each.
 * Fails with an Error whose `kind` is 'locked' (a password), 'damaged' (not a readable PDF) or
 * 'missing' (pdf.js could not be loaded).
 */
export async function pages(bytes, onPage) {
  let pdf;
  try {
    pdf = await pdfjs();
  } catch (e) {
    throw Object.assign(new Error(String((e && e.message) || e)), { kind: 'missing' });
  }
  const task = pdf.getDocument({ data: bytes, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false, enableXfa: false });
  let doc;
  try {
    doc = await task.promise;
  } catch (e) {
    const name = e && e.name;
    throw Object.assign(new Error(String((e && e.message) || e)), { kind: name === 'PasswordException' ? 'locked' : 'damaged' });
  }
  try {
    const out = [];
    for (let n = 1; n <= doc.numPages; n += 1) {
      const page = await doc.getPage(n);
      out.push(pageText(await page.getTextContent()));
      page.cleanup();
      if (onPage) onPage(n, doc.numPages);
    }
    return out;
  } catch (e) {
    throw Object.assign(new Error(String((e && e.message) || e)), { kind: 'damaged' });
  } finally {
    // The loading task ends the document and its worker's share of it.
    task.destroy();
  }
}
