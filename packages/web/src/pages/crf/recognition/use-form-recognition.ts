import { useCallback, useMemo, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { CrfDefinition } from '@ecrf/core';
import { queryKeys } from '../../../api/query-keys';
import { recognitionApi } from '../../../api/recognition.api';
import { identifyTemplates } from './identify-templates';
import type { RecognitionOutcome } from './recognise-flow';

export interface FormRecognitionOptions {
  subjectRecordId: number;
  crfId: number;
  /** The study a recognition is linked to its record in. */
  studyId: number;
  /** The open record's saved id. */
  recordId: number | null;
  definition: CrfDefinition | undefined;
  crfOption: Readonly<Record<string, unknown>> | undefined;
  crfTitle: string | undefined;
}

/**
 * 识别 on one form: the templates it offers, the values a recognition fills into the open editor (through
 * `fillRef`, which the editor sets), and the recognitions made on a record not saved yet, linked to it once its
 * first save gave it an id (SDV).
 */
export function useFormRecognition({
  subjectRecordId,
  crfId,
  studyId,
  recordId,
  definition,
  crfOption,
  crfTitle,
}: FormRecognitionOptions) {
  const queryClient = useQueryClient();
  const fillRef = useRef<((values: Readonly<Record<string, unknown>>) => void) | null>(null);
  /** Recognitions made on a record not saved yet: linked to it once its first save gave it an id (SDV). */
  const pendingRecognitions = useRef<number[]>([]);

  const templates = useMemo(
    () => (definition && crfOption ? identifyTemplates(definition, crfOption, crfTitle ?? '') : []),
    [definition, crfOption, crfTitle],
  );

  const onRecognised = useCallback(
    (outcome: RecognitionOutcome) => {
      if (outcome.recognitionId !== null && recordId === null) pendingRecognitions.current.push(outcome.recognitionId);
      if (outcome.filled.length > 0) fillRef.current?.(outcome.values);
      void queryClient.invalidateQueries({ queryKey: queryKeys.crfRecord.recognitionSources(subjectRecordId, crfId) });
    },
    [recordId, queryClient, subjectRecordId, crfId],
  );

  /** After a new record's first save: its pending recognitions name it. */
  const linkPending = useCallback(
    (crfDataRecordId: number) => {
      for (const recognitionId of pendingRecognitions.current.splice(0)) {
        void recognitionApi
          .linkRecord(studyId, recognitionId, crfDataRecordId)
          .then(() =>
            queryClient.invalidateQueries({
              queryKey: queryKeys.crfRecord.recognitionSources(subjectRecordId, crfId),
            }),
          )
          .catch(() => undefined);
      }
    },
    [studyId, queryClient, subjectRecordId, crfId],
  );

  return { templates, fillRef, onRecognised, linkPending };
}
