/**
 * Reading Markdown pages for the link check of `docs_test.ts`: the links a page
 * makes, and the anchors its headings get on GitHub.
 *
 * @module
 */

/** Fenced code blocks (``` or ~~~), whose text is neither a link nor a heading. */
const FENCE = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm;

/** The page without its fenced code blocks and code spans. */
function prose(markdown: string): string {
  return markdown.replace(FENCE, "").replace(/`+[^`]*`+/g, "code");
}

/**
 * The targets of the inline links and images of `markdown` (`[text](target)`), in
 * order, as written; links inside code are not links.
 */
export function markdownLinks(markdown: string): string[] {
  const text = prose(markdown);
  const found: string[] = [];
  for (
    const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?[^)]*\)/g)
  ) {
    found.push(match[1]!);
  }
  for (const match of text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?\s*$/gm)) {
    found.push(match[1]!); // reference definitions
  }
  return found;
}

/**
 * The anchors of the headings of `markdown` as GitHub makes them: the heading's
 * text (code spans and links as their text) in lower case, without punctuation,
 * spaces turned into `-`, and `-1`, `-2`... after a repeated one.
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(FENCE, "");
  for (const match of text.matchAll(/^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
    const slug = match[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/`/g, "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
