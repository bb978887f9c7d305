CREATE TABLE "crf_stage_crfs" (
	"stage_id" integer NOT NULL,
	"crf_id" integer NOT NULL,
	"study_id" integer NOT NULL,
	"repeat" smallint DEFAULT 1 NOT NULL,
	"order_num" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "crf_stage_crfs_stage_id_crf_id_pk" PRIMARY KEY("stage_id","crf_id")
);
--> statement-breakpoint
CREATE TABLE "crf_stages" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"parent_id" integer DEFAULT 0 NOT NULL,
	"name" varchar(100) NOT NULL,
	"order_num" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crf_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"crf_id" integer NOT NULL,
	"study_id" integer NOT NULL,
	"version" integer NOT NULL,
	"definition" jsonb NOT NULL,
	"source" varchar(20) NOT NULL,
	"item_count" integer NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crfs" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"title" varchar(200) NOT NULL,
	"current_version" integer DEFAULT 1 NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "serial_counters" (
	"study_id" integer NOT NULL,
	"scope_key" integer DEFAULT 0 NOT NULL,
	"last_value" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "serial_counters_study_id_scope_key_pk" PRIMARY KEY("study_id","scope_key")
);
--> statement-breakpoint
CREATE TABLE "studies" (
	"study_id" serial PRIMARY KEY NOT NULL,
	"study_name" varchar(100) NOT NULL,
	"study_code" varchar(50) NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"principal" varchar(50) DEFAULT '' NOT NULL,
	"status" smallint DEFAULT 0 NOT NULL,
	"doubt" char(1) DEFAULT '1' NOT NULL,
	"multi_disease" boolean DEFAULT false NOT NULL,
	"enable_serial_number" boolean DEFAULT false NOT NULL,
	"serial_prefix" varchar(20) DEFAULT '' NOT NULL,
	"serial_digits" smallint DEFAULT 4 NOT NULL,
	"serial_scope" varchar(10) DEFAULT 'study' NOT NULL,
	"display_crf_column" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"sign_config" jsonb DEFAULT '{"enabled":false,"meaning":""}'::jsonb NOT NULL,
	"follow_triggers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"base_config" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by" integer,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "study_diseases" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"disease_name" varchar(100) NOT NULL,
	"disease_code" varchar(50) NOT NULL,
	"crf_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "study_personnel" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"study_role_id" integer NOT NULL,
	"dept_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "study_roles" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"role_name" varchar(50) NOT NULL,
	"remark" varchar(200),
	"permissions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "crf_stage_crfs" ADD CONSTRAINT "crf_stage_crfs_stage_id_crf_stages_id_fk" FOREIGN KEY ("stage_id") REFERENCES "public"."crf_stages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_stage_crfs" ADD CONSTRAINT "crf_stage_crfs_crf_id_crfs_id_fk" FOREIGN KEY ("crf_id") REFERENCES "public"."crfs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_stage_crfs" ADD CONSTRAINT "crf_stage_crfs_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_stages" ADD CONSTRAINT "crf_stages_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_versions" ADD CONSTRAINT "crf_versions_crf_id_crfs_id_fk" FOREIGN KEY ("crf_id") REFERENCES "public"."crfs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_versions" ADD CONSTRAINT "crf_versions_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_versions" ADD CONSTRAINT "crf_versions_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crfs" ADD CONSTRAINT "crfs_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crfs" ADD CONSTRAINT "crfs_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "serial_counters" ADD CONSTRAINT "serial_counters_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "studies" ADD CONSTRAINT "studies_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_diseases" ADD CONSTRAINT "study_diseases_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_personnel" ADD CONSTRAINT "study_personnel_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_personnel" ADD CONSTRAINT "study_personnel_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_personnel" ADD CONSTRAINT "study_personnel_study_role_id_study_roles_id_fk" FOREIGN KEY ("study_role_id") REFERENCES "public"."study_roles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_personnel" ADD CONSTRAINT "study_personnel_dept_id_departments_dept_id_fk" FOREIGN KEY ("dept_id") REFERENCES "public"."departments"("dept_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "study_roles" ADD CONSTRAINT "study_roles_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "crf_stage_crfs_crf" ON "crf_stage_crfs" USING btree ("crf_id");--> statement-breakpoint
CREATE INDEX "crf_stages_study" ON "crf_stages" USING btree ("study_id");--> statement-breakpoint
CREATE UNIQUE INDEX "crf_versions_version" ON "crf_versions" USING btree ("crf_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "crfs_title" ON "crfs" USING btree ("study_id","title");--> statement-breakpoint
CREATE UNIQUE INDEX "studies_code_live" ON "studies" USING btree ("study_code") WHERE "studies"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "study_diseases_code" ON "study_diseases" USING btree ("study_id","disease_code");--> statement-breakpoint
CREATE UNIQUE INDEX "study_personnel_member" ON "study_personnel" USING btree ("study_id","user_id");--> statement-breakpoint
CREATE INDEX "study_personnel_user" ON "study_personnel" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "study_roles_name" ON "study_roles" USING btree ("study_id","role_name");