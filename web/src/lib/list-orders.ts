/** A chosen value as one of `orders`: anything else is the default order (''). */
export const orderOf = <O extends string>(orders: readonly ('' | O)[], value: string | null): '' | O =>
  orders.find((order) => order === value) ?? '';
