ALTER TABLE "studies" ADD COLUMN "enrolment_target" integer;--> statement-breakpoint
ALTER TABLE "studies" ADD COLUMN "enrolment_target_date" varchar(10);