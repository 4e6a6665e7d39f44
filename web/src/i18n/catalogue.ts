/** The shape a translation must fill: the same keys as the English source, every leaf a string. */
export type Catalogue<T> = { [K in keyof T]: T[K] extends string ? string : Catalogue<T[K]> };
