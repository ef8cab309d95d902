/**
 * Bytes to text. Text is decoded as UTF-8 (BOM stripped); a file that is not valid UTF-8 is decoded with the
 * charset its `<meta charset>`/`@charset` names, else windows-1252; UTF-16 with a BOM is honoured. The encoding
 * used is recorded per file.
 */

/** Decode bytes as text; see the module comment for the policy. */
export function decodeText(buf: Buffer): { text: string; encoding: string } {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(buf.subarray(2)), encoding: 'utf-16le' };
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(buf.subarray(2)), encoding: 'utf-16be' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf), encoding: 'utf-8' };
  } catch {
    const head = buf.subarray(0, 2048).toString('latin1');
    const m = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head) ?? /@charset\s+["']([\w-]+)["']/i.exec(head);
    const label = m?.[1]?.toLowerCase();
    if (label && label !== 'utf-8' && label !== 'utf8') {
      try {
        return { text: new TextDecoder(label).decode(buf), encoding: label };
      } catch {
        /* unknown label: fall through */
      }
    }
    return { text: new TextDecoder('windows-1252').decode(buf), encoding: 'windows-1252' };
  }
}

/** Does this look like a binary file (a NUL byte early on, and no UTF-16 BOM)? */
export function looksBinary(buf: Buffer): boolean {
  if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) return false;
  const n = Math.min(buf.length, 8192);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}
