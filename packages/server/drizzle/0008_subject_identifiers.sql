ALTER TABLE "subjects" ADD COLUMN "id_number_enc" text;--> statement-breakpoint
ALTER TABLE "subjects" ADD COLUMN "id_number_hash" varchar(64);--> statement-breakpoint
CREATE UNIQUE INDEX "subjects_id_number_live" ON "subjects" USING btree ("study_id","id_number_hash") WHERE "subjects"."deleted_at" is null and "subjects"."id_number_hash" is not null;--> statement-breakpoint
-- Data: the study administrator role holds every study permission, so existing ones gain the new
-- "see patient identifiers" button (new studies get it through allStudyPermissionKeys).
UPDATE "study_roles" SET "permissions" = "permissions" || '["btn:business.subject.identifiers"]'::jsonb WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.subject.identifiers');
