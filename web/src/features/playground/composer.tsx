import {
  ActionIcon,
  Button,
  CloseButton,
  FileButton,
  Group,
  Image,
  Stack,
  Textarea,
  Tooltip,
} from '@mantine/core';
import { IconPhoto, IconPlayerStop, IconSend } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** A file as a data URL (an image_url part's url). */
export const readDataUrl = (file: Blob): Promise<string> =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () =>
      typeof reader.result === 'string' ? resolve(reader.result) : reject(new Error('not a data URL'));
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsDataURL(file);
  });

/**
 * The message box: text, images (where the model takes them), send (also Ctrl/⌘+Enter) and, while a
 * reply streams, stop.
 */
export const Composer = ({
  disabled,
  streaming,
  imagesAllowed,
  onSend,
  onStop,
}: {
  disabled: boolean;
  streaming: boolean;
  imagesAllowed: boolean;
  onSend: (text: string, images: string[]) => void;
  onStop: () => void;
}) => {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [images, setImages] = useState<string[]>([]);
  const canSend = !disabled && !streaming && (text.trim() !== '' || images.length > 0);
  const send = () => {
    if (!canSend) return;
    onSend(text, imagesAllowed ? images : []);
    setText('');
    setImages([]);
  };
  const attach = async (files: File[]) => {
    const urls = await Promise.all(files.map(readDataUrl));
    setImages((current) => [...current, ...urls]);
  };
  return (
    <Stack gap="xs">
      {imagesAllowed && images.length > 0 && (
        <Group gap="xs">
          {images.map((url, index) => (
            <div key={index} style={{ position: 'relative' }}>
              <Image
                src={url}
                w={56}
                h={56}
                fit="cover"
                radius="sm"
                alt=""
                data-testid="playground-attached"
              />
              <CloseButton
                size="xs"
                pos="absolute"
                top={0}
                right={0}
                aria-label={t('playground.removeImage')}
                onClick={() => setImages((current) => current.filter((_, at) => at !== index))}
              />
            </div>
          ))}
        </Group>
      )}
      <Textarea
        autosize
        minRows={2}
        maxRows={10}
        value={text}
        placeholder={t('playground.placeholder')}
        onChange={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            send();
          }
        }}
        data-testid="playground-input"
      />
      <Group justify="space-between" gap="xs">
        <FileButton
          onChange={(files) => void attach(files)}
          accept="image/*"
          multiple
          disabled={!imagesAllowed}
        >
          {(props) => (
            <Tooltip label={imagesAllowed ? t('playground.attach') : t('playground.noImages')} withArrow>
              <ActionIcon
                {...props}
                variant="default"
                size="lg"
                aria-label={t('playground.attach')}
                disabled={!imagesAllowed}
                data-testid="playground-attach"
              >
                <IconPhoto size={18} />
              </ActionIcon>
            </Tooltip>
          )}
        </FileButton>
        {streaming ? (
          <Button
            color="red"
            leftSection={<IconPlayerStop size={16} />}
            onClick={onStop}
            data-testid="playground-stop"
          >
            {t('playground.stop')}
          </Button>
        ) : (
          <Button
            leftSection={<IconSend size={16} />}
            disabled={!canSend}
            onClick={send}
            data-testid="playground-send"
          >
            {t('playground.send')}
          </Button>
        )}
      </Group>
    </Stack>
  );
};
