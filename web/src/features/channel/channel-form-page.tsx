import {
  Button,
  Code,
  Group,
  MultiSelect,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { CHANNEL_TYPE, CHANNEL_TYPES } from '@sluice/contract/channel-types';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { ListState } from '../../components/list-state.js';
import { PageCard } from '../../components/page-card.js';
import { cachedChannelModels, loadChannelModels } from '../../lib/channel-models.js';
import { showError, showSuccess } from '../../lib/toast.js';
import { createChannel, getChannel, listGroups, updateChannel, type ChannelInput } from './channel-api.js';
import { ChannelKeyStates } from './channel-key-states.js';
import { ChannelTimeoutFields } from './channel-timeout-fields.js';
import {
  channelFormOf,
  channelInputOf,
  EMPTY_CHANNEL_FORM,
  MODEL_MAPPING_EXAMPLE,
  type ChannelFormState,
} from './channel-form-model.js';
import { channelTypeLabel } from './channel-display.js';
import { ModelsField, typeModels } from './channel-models-field.js';
import { AddressFields, KeyFields, TypeNote } from './channel-type-fields.js';

const MONOSPACE = { input: { fontFamily: 'var(--mantine-font-family-monospace)' } };

/** Channel form (/channel/add and /channel/edit/:id, spec §2, §5, §9). */
export const ChannelFormPage = () => {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const id = Number(useParams().id ?? 0);
  const editing = id > 0;
  const [form, setForm] = useState<ChannelFormState>(EMPTY_CHANNEL_FORM);
  const existing = useQuery({
    queryKey: ['channels', 'one', id],
    queryFn: () => getChannel(id),
    enabled: editing,
  });
  const catalogue = useQuery({
    queryKey: ['channel-models'],
    queryFn: loadChannelModels,
    placeholderData: cachedChannelModels,
  });
  const groups = useQuery({ queryKey: ['groups'], queryFn: listGroups });

  useEffect(() => {
    if (existing.data) setForm(channelFormOf(existing.data));
  }, [existing.data]);

  const save = useMutation({
    mutationFn: (input: ChannelInput) =>
      editing ? updateChannel(id, input) : createChannel(input).then(() => undefined),
    onSuccess: async () => {
      showSuccess(editing ? t('channel.updated') : t('channel.created'));
      await queryClient.invalidateQueries({ queryKey: ['channels'] });
      await navigate('/channel');
    },
  });
  const set = <K extends keyof ChannelFormState>(key: K, value: ChannelFormState[K]) =>
    setForm((current) => ({ ...current, [key]: value }));
  const setType = (type: number) =>
    setForm((current) => ({
      ...current,
      type,
      // Spec: picking a type fills in its models while none are chosen.
      models: current.models.length === 0 ? typeModels(catalogue.data, type) : current.models,
    }));
  const groupOptions = [...new Set([...(groups.data ?? []), ...form.groups])];
  const testModelOptions = [...new Set([...form.models, ...(form.testModel ? [form.testModel] : [])])];

  return (
    <PageCard title={editing ? t('channel.editTitle') : t('channel.addTitle')} testId="channel-form">
      <ListState loading={editing && existing.isPending} empty={false}>
        <form
          autoComplete="off"
          // The save rules of spec §5 give the messages, not the browser's own checks.
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            const result = channelInputOf(form, editing);
            if ('problem' in result) showError(t(result.problem));
            else save.mutate(result.input);
          }}
        >
          <Stack gap="md" maw={720}>
            <Select
              label={t('channel.form.type')}
              required
              searchable
              data={CHANNEL_TYPES.map((type) => ({
                value: String(type.value),
                label: channelTypeLabel(type, i18n.language),
              }))}
              value={String(form.type)}
              allowDeselect={false}
              onChange={(value) => value !== null && setType(Number(value))}
              nothingFoundMessage={t('common.nothingFound')}
              comboboxProps={{ withinPortal: true }}
              data-testid="channel-type"
            />
            <TypeNote type={form.type} />
            <TextInput
              label={t('channel.form.name')}
              required
              placeholder={t('channel.form.namePlaceholder')}
              value={form.name}
              onChange={(event) => set('name', event.currentTarget.value)}
              autoComplete="off"
              name="name"
            />
            <KeyFields form={form} editing={editing} set={set} />
            <ChannelKeyStates id={id} form={form} set={set} />
            <AddressFields form={form} set={set} />
            <MultiSelect
              label={t('channel.form.groups')}
              required
              placeholder={form.groups.length === 0 ? t('channel.form.groupsPlaceholder') : undefined}
              data={groupOptions}
              value={form.groups}
              onChange={(value) => set('groups', value)}
              searchable
              nothingFoundMessage={t('common.nothingFound')}
              data-testid="channel-groups"
            />
            {form.type !== CHANNEL_TYPE.proxy && (
              <ModelsField
                type={form.type}
                value={form.models}
                onChange={(models) => set('models', models)}
                catalogue={catalogue.data}
              />
            )}
            {form.type !== CHANNEL_TYPE.proxy && (
              <Stack gap={4}>
                <Textarea
                  label={t('channel.form.modelMapping')}
                  value={form.modelMapping}
                  onChange={(event) => set('modelMapping', event.currentTarget.value)}
                  autosize
                  minRows={4}
                  maxRows={14}
                  styles={MONOSPACE}
                  name="model_mapping"
                />
                <Text size="xs" c="dimmed">
                  {t('channel.form.modelMappingHint')}
                </Text>
                <Code block fz="xs">
                  {MODEL_MAPPING_EXAMPLE}
                </Code>
              </Stack>
            )}
            <Textarea
              label={t('channel.form.systemPrompt')}
              description={t('channel.form.systemPromptHint')}
              value={form.systemPrompt}
              onChange={(event) => set('systemPrompt', event.currentTarget.value)}
              autosize
              minRows={2}
              maxRows={10}
              name="system_prompt"
            />
            <SimpleGrid cols={{ base: 1, xs: 2 }}>
              <NumberInput
                label={t('channel.form.priority')}
                description={t('channel.form.priorityHint')}
                value={form.priority}
                onChange={(value) => set('priority', value)}
                allowDecimal={false}
                name="priority"
              />
              <NumberInput
                label={t('channel.form.weight')}
                description={t('channel.form.weightHint')}
                value={form.weight}
                onChange={(value) => set('weight', value)}
                allowDecimal={false}
                name="weight"
              />
            </SimpleGrid>
            <ChannelTimeoutFields form={form} set={set} />
            <Select
              label={t('channel.form.testModel')}
              description={t('channel.form.testModelHint')}
              data={testModelOptions}
              value={form.testModel || null}
              onChange={(value) => set('testModel', value ?? '')}
              searchable
              clearable
              nothingFoundMessage={t('common.nothingFound')}
              data-testid="channel-test-model-select"
            />
            <Group>
              <Button type="submit" loading={save.isPending} data-testid="channel-submit">
                {t('common.submit')}
              </Button>
              <Button variant="default" onClick={() => void navigate('/channel')}>
                {t('common.cancel')}
              </Button>
            </Group>
          </Stack>
        </form>
      </ListState>
    </PageCard>
  );
};
