CREATE TABLE "randomization_configs" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"version" integer NOT NULL,
	"method" varchar(30) NOT NULL,
	"config" jsonb NOT NULL,
	"seed" varchar(64) NOT NULL,
	"list_source" varchar(20) NOT NULL,
	"reason" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "randomization_configs_version" UNIQUE("study_id","version"),
	CONSTRAINT "randomization_configs_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
CREATE TABLE "randomization_slots" (
	"study_id" integer NOT NULL,
	"config_id" integer NOT NULL,
	"stratum" varchar(400) NOT NULL,
	"slot" integer NOT NULL,
	"block" integer NOT NULL,
	"block_size" integer NOT NULL,
	"arm" varchar(20) NOT NULL,
	"kit_code" varchar(16) NOT NULL,
	CONSTRAINT "randomization_slots_pk" PRIMARY KEY("study_id","config_id","stratum","slot"),
	CONSTRAINT "randomization_slots_kit" UNIQUE("study_id","kit_code")
);
--> statement-breakpoint
CREATE TABLE "randomization_strata" (
	"study_id" integer NOT NULL,
	"config_id" integer NOT NULL,
	"stratum" varchar(400) NOT NULL,
	"size" integer DEFAULT 0 NOT NULL,
	"used" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "randomization_strata_pk" PRIMARY KEY("study_id","config_id","stratum")
);
--> statement-breakpoint
CREATE TABLE "randomization_studies" (
	"study_id" integer PRIMARY KEY NOT NULL,
	"current_config_id" integer,
	"last_number" integer DEFAULT 0 NOT NULL,
	"unblinded_all_at" timestamp with time zone,
	"unblinded_all_by" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "randomization_unblindings" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"kind" varchar(10) NOT NULL,
	"subject_id" integer,
	"reason" text NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "randomization_unblindings_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
CREATE TABLE "randomizations" (
	"id" serial PRIMARY KEY NOT NULL,
	"study_id" integer NOT NULL,
	"subject_id" integer NOT NULL,
	"subject_record_id" integer NOT NULL,
	"config_id" integer NOT NULL,
	"randomization_no" integer NOT NULL,
	"stratum" varchar(400) NOT NULL,
	"slot" integer NOT NULL,
	"arm" varchar(20) NOT NULL,
	"kit_code" varchar(16) NOT NULL,
	"factor_levels" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"scores" jsonb,
	"chosen_by" varchar(10),
	"randomized_by" integer NOT NULL,
	"randomized_at" timestamp with time zone NOT NULL,
	"emergency_unblinded_at" timestamp with time zone,
	"emergency_unblinded_by" integer,
	CONSTRAINT "randomizations_subject" UNIQUE("study_id","subject_id"),
	CONSTRAINT "randomizations_number" UNIQUE("study_id","randomization_no"),
	CONSTRAINT "randomizations_slot" UNIQUE("study_id","config_id","stratum","slot"),
	CONSTRAINT "randomizations_study_key" UNIQUE("study_id","id")
);
--> statement-breakpoint
ALTER TABLE "randomization_configs" ADD CONSTRAINT "randomization_configs_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomization_configs" ADD CONSTRAINT "randomization_configs_created_by_users_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomization_slots" ADD CONSTRAINT "randomization_slots_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomization_slots" ADD CONSTRAINT "randomization_slots_config_id_randomization_configs_id_fk" FOREIGN KEY ("config_id") REFERENCES "public"."randomization_configs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomization_strata" ADD CONSTRAINT "randomization_strata_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomization_strata" ADD CONSTRAINT "randomization_strata_config_id_randomization_configs_id_fk" FOREIGN KEY ("config_id") REFERENCES "public"."randomization_configs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomization_studies" ADD CONSTRAINT "randomization_studies_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomization_studies" ADD CONSTRAINT "randomization_studies_unblinded_all_by_users_user_id_fk" FOREIGN KEY ("unblinded_all_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomization_unblindings" ADD CONSTRAINT "randomization_unblindings_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomization_unblindings" ADD CONSTRAINT "randomization_unblindings_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "public"."subjects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomization_unblindings" ADD CONSTRAINT "randomization_unblindings_user_id_users_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomizations" ADD CONSTRAINT "randomizations_study_id_studies_study_id_fk" FOREIGN KEY ("study_id") REFERENCES "public"."studies"("study_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomizations" ADD CONSTRAINT "randomizations_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "public"."subjects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomizations" ADD CONSTRAINT "randomizations_subject_record_id_subject_records_id_fk" FOREIGN KEY ("subject_record_id") REFERENCES "public"."subject_records"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomizations" ADD CONSTRAINT "randomizations_config_id_randomization_configs_id_fk" FOREIGN KEY ("config_id") REFERENCES "public"."randomization_configs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomizations" ADD CONSTRAINT "randomizations_randomized_by_users_user_id_fk" FOREIGN KEY ("randomized_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "randomizations" ADD CONSTRAINT "randomizations_emergency_unblinded_by_users_user_id_fk" FOREIGN KEY ("emergency_unblinded_by") REFERENCES "public"."users"("user_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "randomization_unblindings_subject" ON "randomization_unblindings" USING btree ("study_id","subject_id");