import { ActionIcon, Badge, Button, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showInfo } from '../../../lib/toast.js';
import { OptionSwitch } from '../options/option-switch.js';
import { addDomain, parseWhitelist, whitelistUpdate } from '../options/option-save-model.js';
import { useOptions, useSaveOptions } from '../options/use-options.js';

/**
 * The email domain whitelist (spec §5): the restriction switch, the domains as removable badges, an
 * add field (an empty or present domain is ignored) and a save that writes only a changed list.
 */
export const WhitelistSection = () => {
  const { t } = useTranslation();
  const options = useOptions();
  const save = useSaveOptions();
  const stored = options.data?.['EmailDomainWhitelist'] ?? '';
  const [state, setState] = useState<{ stored: string; list: readonly string[] }>(() => ({
    stored,
    list: parseWhitelist(stored),
  }));
  if (state.stored !== stored) setState({ stored, list: parseWhitelist(stored) });
  const list = state.stored === stored ? state.list : parseWhitelist(stored);
  const [input, setInput] = useState('');
  const setList = (next: readonly string[]) => setState((current) => ({ ...current, list: next }));

  const add = () => {
    setList(addDomain(list, input));
    setInput('');
  };
  const submit = () => {
    const update = whitelistUpdate(stored, list);
    if (update) save.mutate([update]);
    else showInfo(t('options.noChanges'));
  };

  return (
    <Stack gap="sm" className="option-section" data-testid="section-whitelist">
      <Title order={4}>{t('options.section.whitelist')}</Title>
      <Text size="sm" c="dimmed">
        {t('options.sectionHint.whitelist')}
      </Text>
      <OptionSwitch optionKey="EmailDomainRestrictionEnabled" />
      <Group gap={6} data-testid="whitelist-domains">
        {list.length === 0 && (
          <Text size="sm" c="dimmed">
            {t('options.whitelist.empty')}
          </Text>
        )}
        {list.map((domain) => (
          <Badge
            key={domain}
            variant="light"
            tt="none"
            rightSection={
              <ActionIcon
                size="xs"
                variant="transparent"
                color="gray"
                aria-label={t('options.whitelist.remove', { domain })}
                onClick={() => setList(list.filter((entry) => entry !== domain))}
              >
                <IconX size={12} />
              </ActionIcon>
            }
            data-testid="whitelist-domain"
          >
            {domain}
          </Badge>
        ))}
      </Group>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          add();
        }}
      >
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <TextInput
            flex={1}
            maw={360}
            label={t('options.whitelist.add')}
            placeholder={t('options.whitelist.placeholder')}
            value={input}
            onChange={(event) => setInput(event.currentTarget.value)}
            data-testid="whitelist-input"
          />
          <Button
            type="submit"
            variant="default"
            leftSection={<IconPlus size={16} />}
            data-testid="whitelist-add"
          >
            {t('options.whitelist.addButton')}
          </Button>
        </Group>
      </form>
      <Group>
        <Button onClick={submit} loading={save.isPending} data-testid="save-whitelist">
          {t('options.whitelist.save')}
        </Button>
      </Group>
    </Stack>
  );
};
