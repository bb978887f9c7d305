-- Request and response bodies carried names, numbers and CRF values: the operation log keeps who, what and when only.
UPDATE "oper_logs" SET "oper_url" = split_part("oper_url", '?', 1);--> statement-breakpoint
ALTER TABLE "oper_logs" DROP COLUMN "oper_param";--> statement-breakpoint
ALTER TABLE "oper_logs" DROP COLUMN "json_result";--> statement-breakpoint
ALTER TABLE "crf_data_records" DROP COLUMN "last_request_id";