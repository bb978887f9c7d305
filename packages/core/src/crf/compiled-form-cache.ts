import { compileForm, CrfDefinitionError, type CompiledForm } from './compile-form.js';
import type { CrfDefinition } from './crf-definition.schema.js';
import type { FormReference } from './expression/index.js';

const compiledCache = new WeakMap<CrfDefinition, CompiledForm>();

/** The compiled form of a linted definition (cached per definition object). Throws CrfDefinitionError on a broken one. */
export function getCompiledForm(definition: CrfDefinition): CompiledForm {
  let compiled = compiledCache.get(definition);
  if (!compiled) {
    compiled = compileForm(definition);
    compiledCache.set(definition, compiled);
  }
  const errors = compiled.issues.filter((i) => i.severity === 'error');
  if (errors.length > 0) throw new CrfDefinitionError(errors);
  return compiled;
}

/** The other forms' items a definition's expressions read (form() references), each once. */
export function formReferencesOf(definition: CrfDefinition): readonly FormReference[] {
  return getCompiledForm(definition).formReferences;
}
