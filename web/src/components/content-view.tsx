import { Box } from '@mantine/core';
import { isEmbeddedUrl, renderMarkdown } from '../lib/markdown.js';

/**
 * Admin-configured content (home page, about): a page address is shown in an iframe, anything else
 * is Markdown or HTML.
 */
export const ContentView = ({ content, title }: { content: string; title: string }) =>
  isEmbeddedUrl(content) ? (
    <Box
      component="iframe"
      src={content.trim()}
      title={title}
      w="100%"
      h="calc(100dvh - 140px)"
      style={{ border: 'none' }}
      data-testid="content-iframe"
    />
  ) : (
    <Box
      className="html-content"
      fz="md"
      data-testid="content-html"
      dangerouslySetInnerHTML={{ __html: renderMarkdown(content) }}
    />
  );
