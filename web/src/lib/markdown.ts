import { sanitizeHtml } from './sanitize-html.js';

/**
 * A small Markdown renderer for the admin's texts (home page, about, notice): headings, paragraphs,
 * emphasis, inline code, code blocks, links, images, lists, quotes and rules. Inline HTML in the
 * Markdown is kept (`<b>`, `<br>`, `<span style>` as in one-api's notices), and text that already
 * looks like HTML is taken whole; either way the result is sanitised (`sanitizeHtml`): these texts
 * come from administrators, not only from root.
 */

const escapeHtml = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const safeUrl = (url: string): string => (/^\s*javascript:/i.test(url) ? '#' : escapeHtml(url));

/** An HTML tag written inline (`<b>`, `</span>`, `<br/>`), kept out of the Markdown rules. */
const INLINE_TAG = /<\/?[a-zA-Z][^<>]*>/g;

const inline = (text: string): string => {
  const kept: string[] = [];
  const keep = (html: string) => {
    kept.push(html);
    return `\uE000${kept.length - 1}\uE000`;
  };
  let out = text
    .replace(/`([^`]+)`/g, (_, code: string) => keep(`<code>${escapeHtml(code)}</code>`))
    .replace(INLINE_TAG, keep);
  out = out
    .replace(
      /!\[([^\]]*)\]\(([^)\s]+)\)/g,
      (_, alt: string, src: string) => `<img src="${safeUrl(src)}" alt="${escapeHtml(alt)}">`,
    )
    .replace(
      /\[([^\]]+)\]\(([^)\s]+)\)/g,
      (_, label: string, href: string) =>
        `<a href="${safeUrl(href)}" target="_blank" rel="noreferrer">${label}</a>`,
    )
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/__([^_]+)__/g, '<strong>$1</strong>')
    .replace(/(^|[^*])\*([^*]+)\*/g, '$1<em>$2</em>')
    .replace(/~~([^~]+)~~/g, '<del>$1</del>');
  return out.replace(/\uE000(\d+)\uE000/g, (_, index: string) => kept[Number(index)] ?? '');
};

const isHtml = (text: string): boolean => /^\s*<[a-zA-Z!]/.test(text);

/** Markdown to HTML, before sanitising (`renderMarkdown` sanitises). */
export const markdownToHtml = (source: string): string => {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const html: string[] = [];
  let paragraph: string[] = [];
  let list: { tag: 'ul' | 'ol'; items: string[] } | undefined;
  const flushParagraph = () => {
    if (paragraph.length > 0) html.push(`<p>${paragraph.map(inline).join('<br>')}</p>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list)
      html.push(
        `<${list.tag}>${list.items.map((item) => `<li>${inline(item)}</li>`).join('')}</${list.tag}>`,
      );
    list = undefined;
  };
  const flush = () => {
    flushParagraph();
    flushList();
  };
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const fence = /^```/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      for (index += 1; index < lines.length && !/^```/.test(lines[index] ?? ''); index += 1)
        code.push(lines[index] ?? '');
      html.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    const quote = /^>\s?(.*)$/.exec(line);
    if (heading) {
      flush();
      const level = heading[1]?.length ?? 1;
      html.push(`<h${level}>${inline(heading[2] ?? '')}</h${level}>`);
    } else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      html.push('<hr>');
    } else if (bullet || numbered) {
      flushParagraph();
      const tag = bullet ? 'ul' : 'ol';
      if (list?.tag !== tag) {
        flushList();
        list = { tag, items: [] };
      }
      list.items.push((bullet ?? numbered)?.[1] ?? '');
    } else if (quote) {
      flush();
      html.push(`<blockquote>${inline(quote[1] ?? '')}</blockquote>`);
    } else if (line.trim() === '') {
      flush();
    } else {
      flushList();
      paragraph.push(line);
    }
  }
  flush();
  return html.join('\n');
};

/** Renders Markdown (or takes HTML whole) to sanitised HTML. */
export const renderMarkdown = (source: string): string =>
  sanitizeHtml(isHtml(source) ? source : markdownToHtml(source));

/** True when the configured content is a page address to show in an iframe. */
export const isEmbeddedUrl = (content: string): boolean => /^https?:\/\//.test(content.trim());
