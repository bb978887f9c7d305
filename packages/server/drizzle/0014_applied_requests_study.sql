-- Existing records take their study from the subject record they answered for.
ALTER TABLE "applied_requests" ADD COLUMN "study_id" integer;--> statement-breakpoint
UPDATE "applied_requests" SET "study_id" = "subject_records"."study_id" FROM "subject_records" WHERE "subject_records"."id" = "applied_requests"."subject_record_id";--> statement-breakpoint
ALTER TABLE "applied_requests" ALTER COLUMN "study_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "applied_requests" ADD CONSTRAINT "applied_requests_study_key" UNIQUE("study_id","user_id","request_id");