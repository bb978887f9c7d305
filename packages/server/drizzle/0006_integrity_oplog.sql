CREATE TABLE "applied_requests" (
	"user_id" integer NOT NULL,
	"request_id" varchar(64) NOT NULL,
	"subject_record_id" integer NOT NULL,
	"crf_id" integer NOT NULL,
	"crf_data_record_id" integer NOT NULL,
	"version" integer NOT NULL,
	"state" smallint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "applied_requests_user_id_request_id_pk" PRIMARY KEY("user_id","request_id")
);
--> statement-breakpoint
ALTER TABLE "oper_logs" ADD COLUMN "study_id" integer;--> statement-breakpoint
ALTER TABLE "oper_logs" ADD COLUMN "target" varchar(300);--> statement-breakpoint
ALTER TABLE "oper_logs" ADD COLUMN "result_code" integer;--> statement-breakpoint
ALTER TABLE "crf_data_records" ADD COLUMN "single_form" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "oper_logs_study" ON "oper_logs" USING btree ("study_id","oper_time");--> statement-breakpoint
-- A single form's earliest live record becomes its one record; any later duplicate (written before this
-- constraint existed) stays readable as an ordinary record.
UPDATE "crf_data_records" r SET "single_form" = true
WHERE r."deleted_at" IS NULL
  AND NOT EXISTS (SELECT 1 FROM "crf_stage_crfs" l WHERE l."crf_id" = r."crf_id" AND l."repeat" <> 1)
  AND r."id" = (SELECT min(o."id") FROM "crf_data_records" o WHERE o."subject_record_id" = r."subject_record_id" AND o."crf_id" = r."crf_id" AND o."deleted_at" IS NULL);--> statement-breakpoint
CREATE UNIQUE INDEX "crf_data_records_single_live" ON "crf_data_records" USING btree ("subject_record_id","crf_id") WHERE "crf_data_records"."single_form" and "crf_data_records"."deleted_at" is null;