import { ActionIcon, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';

/** A list's search box: submits the trimmed text on Enter or the button (spec §5: search is trimmed). */
export const SearchBar = ({
  value,
  onChange,
  onSearch,
  placeholder,
  loading,
}: {
  value: string;
  onChange: (value: string) => void;
  onSearch: (keyword: string) => void;
  placeholder: string;
  loading?: boolean;
}) => (
  <form
    onSubmit={(event) => {
      event.preventDefault();
      onSearch(value.trim());
    }}
  >
    <TextInput
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      placeholder={placeholder}
      aria-label={placeholder}
      leftSection={<IconSearch size={16} />}
      rightSection={
        <ActionIcon type="submit" variant="subtle" loading={loading} aria-label={placeholder}>
          <IconSearch size={16} />
        </ActionIcon>
      }
      data-testid="search"
    />
  </form>
);
