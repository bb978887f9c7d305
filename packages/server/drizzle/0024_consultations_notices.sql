CREATE TABLE "consultations" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_id" integer,
	"source" varchar(10) NOT NULL,
	"created_by" integer,
	"title" varchar(100) NOT NULL,
	"question" text NOT NULL,
	"state" smallint DEFAULT 0 NOT NULL,
	"answer" text,
	"answered_by" integer,
	"answered_at" timestamp with time zone,
	"closed_by" integer,
	"closed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "consultations_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
CREATE TABLE "data_change_infos" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer,
	"scope" varchar(500) NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notice_reads" (
	"notice_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"read_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notice_reads_notice_id_user_id_pk" PRIMARY KEY("notice_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "notices" ADD COLUMN "target_type" varchar(10) DEFAULT 'all' NOT NULL;--> statement-breakpoint
ALTER TABLE "notices" ADD COLUMN "target_role_id" integer;--> statement-breakpoint
ALTER TABLE "notices" ADD COLUMN "target_study_id" integer;--> statement-breakpoint
ALTER TABLE "notices" ADD COLUMN "created_by" integer;--> statement-breakpoint
ALTER TABLE "consultations" ADD CONSTRAINT "consultations_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consultations" ADD CONSTRAINT "consultations_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consultations" ADD CONSTRAINT "consultations_answered_by_users_user_id_fk" FOREIGN KEY ("answered_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consultations" ADD CONSTRAINT "consultations_closed_by_users_user_id_fk" FOREIGN KEY ("closed_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_change_infos" ADD CONSTRAINT "data_change_infos_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notice_reads" ADD CONSTRAINT "notice_reads_notice_id_notices_notice_id_fk" FOREIGN KEY ("notice_id") REFERENCES "public"."notices"("notice_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notice_reads" ADD CONSTRAINT "notice_reads_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "consultations_study_state" ON "consultations" USING btree ("study_id","state","created_at");--> statement-breakpoint
CREATE INDEX "data_change_infos_time" ON "data_change_infos" USING btree ("created_at");--> statement-breakpoint
-- Consultation (issue 19) adds a study button. A study administrator role (项目管理员) holds every study permission
-- (allStudyPermissionKeys): roles made before this key existed are given it, once.
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.consult.reply"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.consult.reply');
