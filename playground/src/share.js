// The share link: the editor's text in the URL fragment, `#code=` + base64url of its UTF-8 bytes.

export function encode(source) {
  const bytes = new TextEncoder().encode(source);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decode(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

// The code in a location's fragment, or null when it has none (or it does not decode).
export function codeFromHash(hash) {
  const match = /^#code=([A-Za-z0-9_-]*)$/.exec(hash);
  if (!match) return null;
  try {
    return decode(match[1]);
  } catch {
    return null;
  }
}

export function linkFor(source, location) {
  return `${location.origin}${location.pathname}#code=${encode(source)}`;
}
