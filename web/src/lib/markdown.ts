/**
 * A small Markdown renderer for the admin's texts (home page, about, notice): headings, paragraphs,
 * emphasis, inline code, code blocks, links, images, lists, quotes and rules. Text that already looks
 * like HTML is returned as is (one-api's console passes HTML through too). The texts come from the
 * administrator and are trusted like one-api trusts them.
 */

const escapeHtml = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const safeUrl = (url: string): string => (/^\s*javascript:/i.test(url) ? '#' : url);

const inline = (text: string): string => {
  const codes: string[] = [];
  let out = escapeHtml(text).replace(/`([^`]+)`/g, (_, code: string) => {
    codes.push(`<code>${code}</code>`);
    return `\uE000${codes.length - 1}\uE000`;
  });
  out = out
    .replace(
      /!\[([^\]]*)\]\(([^)\s]+)\)/g,
      (_, alt: string, src: string) => `<img src="${safeUrl(src)}" alt="${alt}">`,
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
  return out.replace(/\uE000(\d+)\uE000/g, (_, index: string) => codes[Number(index)] ?? '');
};

const isHtml = (text: string): boolean => /^\s*<[a-zA-Z!]/.test(text);

/** Renders Markdown (or passes HTML through) to an HTML string. */
export const renderMarkdown = (source: string): string => {
  if (isHtml(source)) return source;
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

/** True when the configured content is a page address to show in an iframe. */
export const isEmbeddedUrl = (content: string): boolean => /^https?:\/\//.test(content.trim());
