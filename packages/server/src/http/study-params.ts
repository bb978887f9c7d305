import type { FastifyRequest } from 'fastify';
import { studyIdQuerySchema } from '@ecrf/core';

/**
 * Where a route names its study, for the study guard (`config.study`, http/study-guard.ts), and the query
 * schema of the routes that name it as `?studyId=`. Shared by every module's routes.
 */
export const studyIdQuery = studyIdQuerySchema;

export const fromParam = (request: FastifyRequest) => (request.params as { id?: number }).id;
export const fromQuery = (request: FastifyRequest) => (request.query as { studyId?: number }).studyId;
export const fromBody = (request: FastifyRequest) => (request.body as { studyId?: number } | undefined)?.studyId;
/** A body that names the study itself as `id` (the study's own settings). */
export const fromBodyId = (request: FastifyRequest) => (request.body as { id?: number } | undefined)?.id;
