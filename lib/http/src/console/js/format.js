// How the console writes values: dates, sizes, file kinds, colours, metadata, the words of a
// search to mark. Pure: no DOM, so that node's tests can import it (tests/js/console_format.test.mjs).

/** A moment, as the reader's locale writes it ("—" for none). `locale` and `timeZone`: the
 * reader's unless given. */
export function when(iso, locale, timeZone) {
  if (!iso) return "—";
  const d = new Date(iso);
  return d.toLocaleString(locale, { dateStyle: "medium", timeStyle: "short", timeZone });
}

/** A size in bytes, in B, KB, MB or GB (1024 each); "—" for none. */
export function bytes(n) {
  if (n === null || n === undefined) return "—";
  const units = ["B", "KB", "MB", "GB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

/** What people call a file of this media type. */
const FILE_KINDS = {
  "application/pdf": "PDF",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "Excel",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint",
  "application/vnd.oasis.opendocument.text": "ODT",
  "application/vnd.oasis.opendocument.spreadsheet": "ODS",
  "application/epub+zip": "EPUB",
  "application/rtf": "RTF",
  "text/rtf": "RTF",
  "text/csv": "CSV",
  "text/tab-separated-values": "TSV",
  "text/html": "HTML",
  "text/markdown": "Markdown",
  "text/plain": "text",
  "audio/mpeg": "MP3",
  "audio/wav": "WAV",
  "audio/mp4": "M4A",
  "audio/ogg": "Ogg",
};
export function fileKind(mime) {
  return FILE_KINDS[mime.split(";")[0].trim().toLowerCase()] || mime.split("/").pop();
}

/** `text` split around the query's words (of two letters or more, any case): the parts at odd
 * indices are the words found, to be marked. */
export function markParts(text, query) {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) || [])];
  if (!words.length) return [text];
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const re = new RegExp(`(${escaped.join("|")})`, "giu");
  return text.split(re);
}

/** Lines of a text (a textarea's), trimmed, without empty ones. */
export const nonEmptyLines = (text) => text.split("\n").map((l) => l.trim()).filter(Boolean);

/** `#rgb` as `#rrggbb` (what a colour input takes). */
export function fullHex(colour, fallback) {
  if (!colour) return fallback;
  return colour.length === 4 ? `#${[...colour.slice(1)].map((c) => c + c).join("")}` : colour;
}

/** A typed metadata value from what was typed: `true`/`false`, a number, else the text. */
export const typedValue = (raw) => (raw === "true" ? true : raw === "false" ? false : raw !== "" && !Number.isNaN(Number(raw)) ? Number(raw) : raw);

/** `key = value` lines from metadata; numbers and true/false stay typed. */
export const metadataLines = (m) => Object.entries(m || {}).map(([key, v]) => `${key} = ${v}`).join("\n");

/** Metadata from `key = value` lines (blank lines skipped); throws on a line that is not one. */
export function parseMetadata(text) {
  const out = {};
  for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf("=");
    if (at < 1) throw new Error(`"${line}" is not key = value`);
    const key = line.slice(0, at).trim();
    const raw = line.slice(at + 1).trim();
    out[key] = typedValue(raw);
  }
  return out;
}
