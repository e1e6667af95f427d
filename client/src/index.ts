export const placeholder = 1
