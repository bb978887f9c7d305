import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  buttonKey,
  CODING_MSG,
  codingApproveBodySchema,
  codingCodeBodySchema,
  codingDictionariesQuerySchema,
  codingDictionaryQuerySchema,
  codingItemsBodySchema,
  codingListQuerySchema,
  codingSearchQuerySchema,
  codingUpgradeQuerySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import { fromBody, fromQuery } from '../../http/study-params.js';
import type { App } from '../../http/types.js';
import { AppError } from '../../shared/app-error.js';
import { listDictionaries, loadDictionary, upgradeImpact } from './coding-dictionary.service.js';
import { termsOfUpload, type UploadedFile } from './coding-files.js';
import {
  approveCoding,
  codeManually,
  getCodedItemSettings,
  listCodedItems,
  searchTerms,
  setCodedItems,
} from './coding-items.service.js';

const tags = ['医学编码'];
const module = '医学编码';
const studyPermission = buttonKey('business.coding');
/** A licensed MedDRA's llt.asc is a few MB; a WHODrug CSV of every name some tens. */
const FILE_BYTES = 128 * 1024 * 1024;
const MAX_FILES = 12;

/**
 * 医学编码 (issue 37). Every route, reads included, needs the study key 医学编码: the coding list shows verbatims of
 * many forms side by side, which is a coder's work, not a form reader's. On top, the service shows a coded item only
 * to a caller who sees its patient's site and may view its form.
 */
export function codingRoutes(app: App, ctx: AppContext) {
  void app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: FILE_BYTES, files: MAX_FILES, fields: 10 },
      throwFileSizeLimit: false,
    });
    const uploads = scope.withTypeProvider<ZodTypeProvider>();
    uploads.post(
      '/api/business/coding/dictionary',
      {
        schema: {
          tags,
          summary:
            '加载编码词典：MedDRA 上传 ASCII 文件（llt.asc、pt.asc、soc.asc、mdhier.asc，及 hlt/hlgt 与关联文件），' +
            'WHODrug 上传 B3 文件（DD.txt、DDA.txt、INA.txt）或 CSV（drug_code,drug_name,atc_code,atc_text）；' +
            '也可直接上传发布的 zip 压缩包；加载后成为该类的当前词典',
          consumes: ['multipart/form-data'],
          querystring: codingDictionaryQuerySchema,
        },
        // The study is in the address: the membership and permission guards run before a byte is read.
        config: { study: fromQuery, studyPermission, module, action: '加载编码词典' },
      },
      async (request) => {
        const user = requireUser(request);
        const access = requireStudy(request);
        const files: UploadedFile[] = [];
        for await (const part of request.files()) {
          const data = await part.toBuffer();
          if (part.file.truncated) throw AppError.badRequest('coding.too_large', CODING_MSG.tooLarge);
          files.push({ name: part.filename.replace(/^.*[\\/]/u, ''), data });
        }
        const terms = await termsOfUpload(request.query.kind, files);
        return ok(await loadDictionary(ctx, user, access, request.query, terms), CODING_MSG.loaded);
      },
    );
  });

  app.get(
    '/api/business/coding/dictionaries',
    {
      schema: { tags, summary: '已加载的编码词典', querystring: codingDictionariesQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await listDictionaries(ctx, requireStudy(request))),
  );
  app.get(
    '/api/business/coding/settings',
    {
      schema: { tags, summary: '项目的编码条目', querystring: codingDictionariesQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await getCodedItemSettings(ctx, requireStudy(request))),
  );
  app.put(
    '/api/business/coding/items',
    {
      schema: { tags, summary: '设置编码条目（表单题目与词典类型）', body: codingItemsBodySchema },
      config: { study: fromBody, studyPermission, module, action: '设置编码条目' },
    },
    async (request) =>
      ok(await setCodedItems(ctx, requireUser(request), requireStudy(request), request.body), CODING_MSG.itemsSaved),
  );
  app.get(
    '/api/business/coding/items',
    {
      schema: { tags, summary: '编码列表', querystring: codingListQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await listCodedItems(ctx, requireStudy(request), request.query, pageRequest(request.query))),
  );
  app.get(
    '/api/business/coding/search',
    {
      schema: { tags, summary: '检索词典（名称或编码，最多50条）', querystring: codingSearchQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await searchTerms(ctx, requireStudy(request), request.query)),
  );
  app.post(
    '/api/business/coding/code',
    {
      schema: { tags, summary: '人工编码', body: codingCodeBodySchema },
      config: { study: fromBody, studyPermission, module, action: '人工编码' },
    },
    async (request) =>
      ok(await codeManually(ctx, requireUser(request), requireStudy(request), request.body), CODING_MSG.coded),
  );
  app.post(
    '/api/business/coding/approve',
    {
      schema: { tags, summary: '审核编码（需「编码审核」；不能审核自己编码的条目）', body: codingApproveBodySchema },
      // 编码审核, a key of its own: a study can keep coders and approvers apart (issue 37).
      config: { study: fromBody, studyPermission: buttonKey('business.coding.approve'), module, action: '审核编码' },
    },
    async (request) =>
      ok(await approveCoding(ctx, requireUser(request), requireStudy(request), request.body), CODING_MSG.approved),
  );
  app.get(
    '/api/business/coding/upgrade-impact',
    {
      schema: { tags, summary: '词典升级影响：编码发生变化的条目', querystring: codingUpgradeQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await upgradeImpact(ctx, requireStudy(request), request.query.dictionaryId)),
  );
}
