CREATE TABLE "coded_items" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_record_id" integer NOT NULL,
	"crf_data_record_id" integer NOT NULL,
	"item_name" varchar(100) NOT NULL,
	"verbatim" text NOT NULL,
	"dictionary_id" integer,
	"state" varchar(12) DEFAULT 'uncoded' NOT NULL,
	"coding" jsonb,
	"coded_by" integer,
	"coded_at" timestamp with time zone,
	"approved_by" integer,
	"approved_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "coded_items_record_item" UNIQUE("crf_data_record_id","item_name"),
	CONSTRAINT "coded_items_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
CREATE TABLE "coding_dictionaries" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"kind" varchar(12) NOT NULL,
	"version" varchar(40) NOT NULL,
	"language" varchar(8) NOT NULL,
	"active" boolean DEFAULT false NOT NULL,
	"term_count" integer DEFAULT 0 NOT NULL,
	"loaded_by" integer,
	"loaded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "coding_dictionaries_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
CREATE TABLE "coding_terms" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"dictionary_id" integer NOT NULL,
	"level" varchar(8) NOT NULL,
	"code" varchar(20) NOT NULL,
	"name" text NOT NULL,
	"match_key" text NOT NULL,
	"parent_code" varchar(20),
	"current" boolean DEFAULT true NOT NULL,
	"extra" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "coding_terms_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "studies" ADD COLUMN "coded_items" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "coded_items" ADD CONSTRAINT "coded_items_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coded_items" ADD CONSTRAINT "coded_items_subject_record_id_subject_records_id_fk" FOREIGN KEY ("subject_record_id") REFERENCES "public"."subject_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coded_items" ADD CONSTRAINT "coded_items_crf_data_record_id_crf_data_records_id_fk" FOREIGN KEY ("crf_data_record_id") REFERENCES "public"."crf_data_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coded_items" ADD CONSTRAINT "coded_items_dictionary_id_coding_dictionaries_id_fk" FOREIGN KEY ("dictionary_id") REFERENCES "public"."coding_dictionaries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coded_items" ADD CONSTRAINT "coded_items_coded_by_users_user_id_fk" FOREIGN KEY ("coded_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coded_items" ADD CONSTRAINT "coded_items_approved_by_users_user_id_fk" FOREIGN KEY ("approved_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coding_dictionaries" ADD CONSTRAINT "coding_dictionaries_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coding_dictionaries" ADD CONSTRAINT "coding_dictionaries_loaded_by_users_user_id_fk" FOREIGN KEY ("loaded_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coding_terms" ADD CONSTRAINT "coding_terms_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coding_terms" ADD CONSTRAINT "coding_terms_dictionary_id_coding_dictionaries_id_fk" FOREIGN KEY ("dictionary_id") REFERENCES "public"."coding_dictionaries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "coded_items_study_state" ON "coded_items" USING btree ("study_id","state");--> statement-breakpoint
CREATE INDEX "coded_items_subject" ON "coded_items" USING btree ("subject_record_id");--> statement-breakpoint
CREATE INDEX "coding_dictionaries_study" ON "coding_dictionaries" USING btree ("study_id","kind");--> statement-breakpoint
CREATE INDEX "coding_terms_match" ON "coding_terms" USING btree ("dictionary_id","match_key");--> statement-breakpoint
CREATE INDEX "coding_terms_code" ON "coding_terms" USING btree ("dictionary_id","level","code");--> statement-breakpoint
-- 医学编码 (issue 37) adds a study button; roles of 项目管理员 made before it existed are given it, once.
UPDATE "study_roles"
SET "permissions" = "permissions" || '["btn:business.coding"]'::jsonb
WHERE "role_name" = '项目管理员' AND NOT ("permissions" ? 'btn:business.coding');
