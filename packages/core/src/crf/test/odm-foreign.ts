/** What a reader that knows nothing of our Alias contexts (`ecrf:…`, odm-write.ts) gets out of one of our ODM files. */
export const withoutOurAliases = (xml: string) => xml.replace(/<Alias Context="ecrf:[A-Za-z]+" Name="[^"]*"\/>/g, '');

/** Our own Alias values of an element parsed with attributes as `@Name` (undefined when it has none). */
export function ourAlias(element: { Alias?: unknown }, key: string): string | undefined {
  const aliases = ([] as Array<Record<string, string>>).concat(
    (element.Alias as Array<Record<string, string>> | Record<string, string> | undefined) ?? [],
  );
  return aliases.find((a) => a['@Context'] === `ecrf:${key}`)?.['@Name'];
}
