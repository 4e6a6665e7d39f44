import { ActionIcon, Box, Code, CopyButton, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';

/** The text of a code block's children (react-markdown gives the code as one string child). */
const textOf = (node: ReactNode): string =>
  typeof node === 'string' ? node : Array.isArray(node) ? node.map(textOf).join('') : '';

const CodeBlock = ({ children }: { children?: ReactNode }) => {
  const { t } = useTranslation();
  const code = textOf(
    (children as { props?: { children?: ReactNode } } | undefined)?.props?.children ?? children,
  ).replace(/\n$/, '');
  return (
    <Box pos="relative">
      <Box
        component="pre"
        p="sm"
        fz="sm"
        bg="var(--mantine-color-default-hover)"
        style={{ overflowX: 'auto', borderRadius: 'var(--mantine-radius-sm)' }}
      >
        <code>{code}</code>
      </Box>
      <CopyButton value={code}>
        {({ copied, copy }) => (
          <Tooltip label={t('common.copy')} withArrow>
            <ActionIcon variant="subtle" size="sm" pos="absolute" top={4} right={4} onClick={copy}>
              {copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Box>
  );
};

const COMPONENTS: Components = {
  // A block renders its text itself (above), so `code` here is inline code only.
  pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
  code: ({ children }) => <Code>{children}</Code>,
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
  table: ({ children }) => (
    <Box style={{ overflowX: 'auto' }}>
      <table>{children}</table>
    </Box>
  ),
};

/**
 * A reply as Markdown (GitHub's flavour: tables, task lists, strikethrough) with its code blocks
 * scrolling in place and copyable. Raw HTML in a reply is shown as text, never rendered: the
 * model's output is not trusted.
 */
export const ReplyMarkdown = ({ text }: { text: string }) => (
  <Box
    className="html-content"
    fz="sm"
    style={{ overflowWrap: 'anywhere' }}
    data-testid="playground-markdown"
  >
    <Markdown remarkPlugins={[remarkGfm]} components={COMPONENTS}>
      {text}
    </Markdown>
  </Box>
);
