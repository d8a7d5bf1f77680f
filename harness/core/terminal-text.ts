/**
 * Text from a contender (its manifest, its log, its failure reasons) printed to a terminal. A
 * manifest or a log can carry escape sequences that retitle the window, clear the screen or move
 * the cursor; `terminalSafe` removes every control character and escape sequence except colour
 * (SGR: ESC [ … m, which the harness's own output uses), and keeps newlines and tabs.
 */

// ESC-introduced sequences: CSI (ESC [ … final byte), OSC (ESC ] … BEL or ST), other two-byte escapes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matches escape sequences to remove them
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -~]?/g;
// C0 controls but tab and newline, DEL, and C1 controls (U+0080–U+009F, e.g. the 8-bit CSI).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matches control characters to remove them
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour (SGR) is the one sequence kept
const SGR = /^\x1b\[[0-9;]*m$/;

/** `text` with every escape sequence but colour (SGR) and every control character but \n and \t removed. */
export function terminalSafe(text: string): string {
  return text.replace(ESCAPES, (seq) => (SGR.test(seq) ? seq : '')).replace(CONTROLS, (c) => (c === '\x1b' ? c : ''));
}
