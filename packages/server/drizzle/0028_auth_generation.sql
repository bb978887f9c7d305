CREATE TABLE "auth_generation" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"generation" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "auth_generation" ADD CONSTRAINT "auth_generation_one_row" CHECK ("id" = 1);--> statement-breakpoint
INSERT INTO "auth_generation" ("id", "generation") VALUES (1, 0);--> statement-breakpoint
CREATE FUNCTION "bump_auth_generation"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "auth_generation" SET "generation" = "generation" + 1 WHERE "id" = 1;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "users_auth_generation" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "users" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_generation"();--> statement-breakpoint
CREATE TRIGGER "roles_auth_generation" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "roles" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_generation"();--> statement-breakpoint
CREATE TRIGGER "user_roles_auth_generation" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "user_roles" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_generation"();--> statement-breakpoint
CREATE TRIGGER "menus_auth_generation" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "menus" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_generation"();--> statement-breakpoint
CREATE TRIGGER "role_menus_auth_generation" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "role_menus" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_generation"();--> statement-breakpoint
CREATE TRIGGER "studies_auth_generation" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "studies" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_generation"();--> statement-breakpoint
CREATE TRIGGER "study_roles_auth_generation" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "study_roles" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_generation"();--> statement-breakpoint
CREATE TRIGGER "study_personnel_auth_generation" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "study_personnel" FOR EACH STATEMENT EXECUTE FUNCTION "bump_auth_generation"();
