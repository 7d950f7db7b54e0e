package app

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/web"
)

// routes is the one map of the URL surface: public, signed-in pages, and /v1/api.
func (s *server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.RequestID)
	if s.cfg.TrustProxy {
		r.Use(middleware.RealIP)
	}
	r.Use(s.metrics.Middleware)
	r.Use(s.web.AccessLog)
	r.Use(s.web.RecoverPanics)
	r.Use(web.SecurityHeaders)
	r.Use(middleware.Compress(5, "text/html", "text/css", "application/javascript", "text/javascript",
		"application/json", "image/svg+xml", "application/manifest+json"))

	// Process-level endpoints: no session, no language.
	r.Get("/healthz", s.handleHealth)
	r.Get("/readyz", s.handleReady)
	r.Method(http.MethodGet, "/metrics", promhttp.HandlerFor(s.metrics.Registry, promhttp.HandlerOpts{}))
	r.Method(http.MethodGet, "/static/build/*", s.web.Assets.Handler())

	// Everything else: forgery protection, session, caller, language.
	r.Group(func(r chi.Router) {
		r.Use(s.web.CrossOriginProtection().Handler)
		r.Use(middleware.Timeout(30 * time.Second))
		r.Use(s.web.Sessions.LoadAndSave)
		r.Use(s.web.Authenticate)
		r.Use(s.web.Localize)
		r.NotFound(s.handleNotFound)
		r.MethodNotAllowed(s.handleMethodNotAllowed)

		r.Get("/", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/home", http.StatusSeeOther) })
		r.Get("/login", s.handleLoginPage)
		r.Post("/login", s.handleLoginSubmit)
		r.Post("/language", s.handleLanguage)

		r.Group(func(r chi.Router) {
			r.Use(s.web.RequireAuth)
			r.Post("/logout", s.handleLogout)
			r.With(s.web.Can(auth.FeatureDashboard, auth.View)).Get("/home", s.handleHome)

			// Admin lead and settings pages (app/leads_pages.go, app/settings_pages.go).
			leadPage := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureLeads, a) }
			r.With(leadPage(auth.View)).Get("/leads", s.handleLeadsPage)
			r.With(leadPage(auth.Update)).Post("/leads/bulk/update", s.handleLeadsBulkUpdate)
			r.With(leadPage(auth.Delete)).Post("/leads/bulk/delete", s.handleLeadsBulkDelete)
			r.With(leadPage(auth.View)).Post("/leads/views", s.handleSavedViewSavePage)
			r.With(leadPage(auth.View)).Post("/leads/views/{id}/delete", s.handleSavedViewDeletePage)
			r.With(leadPage(auth.Create)).Get("/leads/new", s.handleLeadNewPage)
			r.With(leadPage(auth.Create)).Post("/leads/new", s.handleLeadCreatePage)
			r.With(leadPage(auth.View)).Get("/leads/board", s.handleBoardPage)
			r.With(leadPage(auth.View)).Get("/leads/board/more", s.handleBoardMore)
			r.With(leadPage(auth.View)).Get("/leads/{id}", s.handleLeadPage)
			r.With(leadPage(auth.Update)).Get("/leads/{id}/edit", s.handleLeadEditPage)
			r.With(leadPage(auth.Update)).Post("/leads/{id}/edit", s.handleLeadUpdatePage)
			r.With(leadPage(auth.Update)).Post("/leads/{id}/stage", s.handleLeadFieldPage(store.FieldStage))
			r.With(leadPage(auth.Update)).Post("/leads/{id}/status", s.handleLeadFieldPage(store.FieldStatus))
			r.With(leadPage(auth.Delete)).Get("/leads/{id}/delete", s.handleLeadDeletePage)
			r.With(leadPage(auth.Delete)).Post("/leads/{id}/delete", s.handleLeadDeleteSubmit)
			settingsPage := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureSettings, a) }
			r.With(settingsPage(auth.View)).Get("/settings", s.handleSettingsHome)
			r.With(settingsPage(auth.View)).Get("/settings/masters/{kind}", s.handleMastersPage)
			r.With(settingsPage(auth.Create)).Post("/settings/masters/{kind}", s.handleMasterAddPage)
			r.With(settingsPage(auth.Update)).Post("/settings/masters/{kind}/{id}/rename", s.handleMasterRenamePage)
			r.With(settingsPage(auth.Update)).Post("/settings/masters/{kind}/{id}/move", s.handleMasterMovePage)
			r.With(settingsPage(auth.Delete)).Get("/settings/masters/{kind}/{id}/delete", s.handleMasterDeletePage)
			r.With(settingsPage(auth.Delete)).Post("/settings/masters/{kind}/{id}/delete", s.handleMasterDeleteSubmit)
			r.With(settingsPage(auth.View)).Get("/settings/stages", s.handleStageSettingsPage)
			r.With(settingsPage(auth.Update)).Post("/settings/stages", s.handleStageSettingsSubmit)

			// Client, document and reminder pages (app/clients_pages.go, app/lead_extras_pages.go).
			clientPage := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureClients, a) }
			r.With(clientPage(auth.View)).Get("/clients", s.handleClientsPage)
			r.With(clientPage(auth.Update)).Post("/clients/bulk/owner", s.handleClientsBulkOwner)
			r.With(clientPage(auth.Delete)).Post("/clients/bulk/delete", s.handleClientsBulkDelete)
			r.With(clientPage(auth.Create)).Get("/clients/new", s.handleClientNewPage)
			r.With(clientPage(auth.Create)).Post("/clients/new", s.handleClientCreatePage)
			r.With(clientPage(auth.View)).Get("/clients/{id}", s.handleClientPage)
			r.With(clientPage(auth.Update)).Get("/clients/{id}/edit", s.handleClientEditPage)
			r.With(clientPage(auth.Update)).Post("/clients/{id}/edit", s.handleClientUpdatePage)
			r.With(clientPage(auth.Delete)).Get("/clients/{id}/delete", s.handleClientDeletePage)
			r.With(clientPage(auth.Delete)).Post("/clients/{id}/delete", s.handleClientDeleteSubmit)
			r.With(clientPage(auth.Create), leadPage(auth.Update)).Post("/leads/{id}/convert", s.handleLeadConvertPage)
			for _, d := range []struct {
				entity, base string
				feature      auth.Feature
			}{{store.EntityLead, "/leads", auth.FeatureLeads}, {store.EntityClient, "/clients", auth.FeatureClients}} {
				can := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(d.feature, a) }
				r.With(can(auth.Create)).Post(d.base+"/{id}/documents", s.handleDocumentUploadPage(d.entity))
				r.With(can(auth.Update)).Get(d.base+"/{id}/documents/{docID}/edit", s.handleDocumentEditPage(d.entity))
				r.With(can(auth.Update)).Post(d.base+"/{id}/documents/{docID}/edit", s.handleDocumentEditPage(d.entity))
				r.With(can(auth.Delete)).Get(d.base+"/{id}/documents/{docID}/delete", s.handleDocumentDeletePage(d.entity))
				r.With(can(auth.Delete)).Post(d.base+"/{id}/documents/{docID}/delete", s.handleDocumentDeletePage(d.entity))
			}
			r.With(leadPage(auth.Create)).Post("/leads/{id}/reminders", s.handleReminderCreatePage)
			r.With(leadPage(auth.Update)).Get("/reminders/{id}/edit", s.handleReminderEditPage)
			r.With(leadPage(auth.Update)).Post("/reminders/{id}/edit", s.handleReminderEditPage)
			r.With(leadPage(auth.Update)).Post("/reminders/{id}/done", s.handleReminderDonePage)
			r.With(leadPage(auth.Delete)).Get("/reminders/{id}/delete", s.handleReminderDeletePage)
			r.With(leadPage(auth.Delete)).Post("/reminders/{id}/delete", s.handleReminderDeletePage)
			r.Get("/notifications", s.handleNotificationsPage)
			// End of client, document and reminder pages.
		})

		// Mobile lead manager pages (handlers in app/mobile.go).
		// MOBILE-ROUTES-BEGIN
		r.Get("/m", s.handleMobileRedirect)
		r.Get("/m/", s.handleMobileRedirect)
		r.Get("/m/*", s.handleMobileRedirect)
		r.Get("/m/login", s.handleMobileLoginPage)
		r.Post("/m/login", s.handleMobileLoginSubmit)
		r.Get("/m/sw.js", s.handleMobileServiceWorker)
		r.Get("/locales/mobile/{file}", s.handleMobileLocale)
		r.Get("/v1/api/config.json", s.handleMobileConfig)
		r.Group(func(r chi.Router) {
			r.Use(s.web.RequireAuth)
			for _, path := range mobileScreens {
				r.Get(path, s.handleMobileScreen)
			}
		})
		// MOBILE-ROUTES-END

		r.Route("/v1/api", func(r chi.Router) {
			r.NotFound(s.handleNotFound)
			r.MethodNotAllowed(s.handleMethodNotAllowed)
			r.Post("/auth/login", s.handleAPILogin)
			r.Get("/openapi.json", s.handleOpenAPI)
			r.Group(func(r chi.Router) {
				r.Use(s.web.RequireAuth)
				r.Post("/auth/logout", s.handleAPILogout)
				r.Get("/auth/me", s.handleAPIMe)
				r.Get("/get-allow-feature", s.handleAllowedFeatures)

				leadsView := s.web.Can(auth.FeatureLeads, auth.View)
				r.With(leadsView).Get("/lead/list-customer-lead", s.handleLeadList)
				r.With(leadsView).Get("/lead/view-customer-lead/{id}", s.handleLeadView)
				r.With(leadsView).Get("/lead/logo/{id}", s.handleLeadLogo)
				r.With(s.web.Can(auth.FeatureLeads, auth.Create)).Post("/lead/create-customer-lead", s.handleLeadCreate)
				r.With(s.web.Can(auth.FeatureLeads, auth.Delete)).Delete("/lead/delete-customer-lead/{id}", s.handleLeadDelete)

				leadsUpdate := s.web.Can(auth.FeatureLeads, auth.Update)
				leadsDelete := s.web.Can(auth.FeatureLeads, auth.Delete)
				r.With(leadsUpdate).Put("/lead/update-customer-lead/{id}", s.handleLeadUpdate)
				r.With(leadsUpdate).Patch("/lead/update-stage-customer-lead/{id}", s.handleLeadSetField(store.FieldStage))
				r.With(leadsUpdate).Patch("/lead/update-status-customer-lead/{id}", s.handleLeadSetField(store.FieldStatus))
				r.With(leadsUpdate).Patch("/lead/update-owner-customer-lead/{id}", s.handleLeadSetField(store.FieldOwner))
				r.With(leadsUpdate).Patch("/lead/bulk-update-customer-lead", s.handleLeadBulkUpdate)
				r.With(leadsDelete).Delete("/lead/delete-customer-lead", s.handleLeadDeleteMany)
				r.With(leadsView).Get("/lead/list-customer-journey", s.handleLeadJourney)
				r.With(leadsView).Get("/lead/duplicate-customer-lead", s.handleLeadDuplicates)
				r.With(leadsView).Get("/lead/dropdown-customer-lead", s.handleLeadDropdown)
				r.With(leadsView).Get("/lead/list-saved-view", s.handleSavedViewList)
				r.With(leadsView).Post("/lead/create-saved-view", s.handleSavedViewCreate)
				r.With(leadsView).Delete("/lead/delete-saved-view/{id}", s.handleSavedViewDelete)

				// Lead conversion, documents and reminders ("remainders" in the spec's paths).
				leadsCreate := s.web.Can(auth.FeatureLeads, auth.Create)
				r.With(s.web.Can(auth.FeatureClients, auth.Create), leadsUpdate).Post("/lead/convert-to-client/{id}", s.handleLeadConvert)
				for _, d := range []struct {
					entity  string
					feature auth.Feature
				}{{store.EntityLead, auth.FeatureLeads}, {store.EntityClient, auth.FeatureClients}} {
					can := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(d.feature, a) }
					r.With(can(auth.Create)).Post("/"+d.entity+"/create-document/{id}", s.handleDocumentUpload(d.entity))
					r.With(can(auth.View)).Get("/"+d.entity+"/list-document/{id}", s.handleDocumentList(d.entity))
					r.With(can(auth.View)).Get("/"+d.entity+"/view-document/{id}", s.handleDocumentView(d.entity))
					r.With(can(auth.View)).Get("/"+d.entity+"/download-document/{id}", s.handleDocumentDownload(d.entity))
					r.With(can(auth.Update)).Put("/"+d.entity+"/update-document/{id}", s.handleDocumentUpdate(d.entity))
					r.With(can(auth.Delete)).Delete("/"+d.entity+"/delete-document/{id}", s.handleDocumentDelete(d.entity))
				}
				r.With(leadsCreate).Post("/lead/create-remainders", s.handleReminderCreate)
				r.With(leadsView).Get("/lead/list-remainders", s.handleReminderList)
				r.With(leadsView).Get("/lead/view-remainders/{id}", s.handleReminderView)
				r.With(leadsUpdate).Put("/lead/update-remainders/{id}", s.handleReminderUpdate)
				r.With(leadsDelete).Delete("/lead/delete-remainders/{id}", s.handleReminderDelete)
				r.Get("/notifications", s.handleNotifications)

				// Clients.
				clients := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureClients, a) }
				r.With(clients(auth.Create)).Post("/client/create-customer-client", s.handleClientCreate)
				r.With(clients(auth.Update)).Put("/client/update-customer-client/{id}", s.handleClientUpdate)
				r.With(clients(auth.View)).Get("/client/view-customer-client/{id}", s.handleClientView)
				r.With(clients(auth.Delete)).Delete("/client/delete-customer-client/{id}", s.handleClientDelete)
				r.With(clients(auth.View)).Get("/client/list-customer-client", s.handleClientList)
				r.With(clients(auth.Update)).Patch("/client/bulk-update-customer-client", s.handleClientBulkUpdate)
				r.With(clients(auth.Delete)).Delete("/client/delete-customer-client", s.handleClientDeleteMany)

				// Dashboards (app/dashboard.go): figures of a period in the caller's record scope.
				dashboardView := s.web.Can(auth.FeatureDashboard, auth.View)
				r.With(dashboardView, s.web.Can(auth.FeatureLeads, auth.View)).Get("/lead/dashboard/lead", s.handleLeadDashboard)
				r.With(dashboardView, s.web.Can(auth.FeatureLeads, auth.View)).Get("/lead/dashboard/lead-overview", s.handleLeadOverview)
				r.With(dashboardView, s.web.Can(auth.FeatureClients, auth.View)).Get("/client/dashboard/client", s.handleClientDashboard)

				// Masters (Settings area); their dropdowns serve anyone working with leads.
				settings := func(a auth.Action) func(http.Handler) http.Handler { return s.web.Can(auth.FeatureSettings, a) }
				for _, fam := range masterFamilies {
					r.With(leadsView).Get("/dropdown-"+fam.path, s.handleDropdown(fam.kind))
					r.With(settings(auth.View)).Get("/list-"+fam.path, s.handleMasterList(fam.kind))
					r.With(settings(auth.View)).Get("/view-"+fam.path+"/{id}", s.handleMasterView(fam.kind))
					r.With(settings(auth.Create)).Post("/create-"+fam.path, s.handleMasterCreate(fam.kind))
					r.With(settings(auth.Update)).Put("/update-"+fam.path+"/{id}", s.handleMasterUpdate(fam.kind))
					r.With(settings(auth.Delete)).Delete("/delete-"+fam.path+"/{id}", s.handleMasterDelete(fam.kind))
				}
				r.With(leadsView).Get("/dropdown-lead-stage-master/", s.handleDropdown(store.KindStage))
				r.With(settings(auth.Update)).Put("/update-lead-stage-order", s.handleStageOrder)
				r.With(settings(auth.View)).Get("/view-or-create-lead-stage-setting", s.handleStageSettingsView)
				r.With(settings(auth.Update)).Put("/update-lead-stage-setting", s.handleStageSettingsUpdate)
			})
		})

		// Import and export (app/imports.go, app/exports.go): CSV export of the lead and client
		// lists with their current query; CSV import of leads or clients, run in the background.
		// Each import handler checks the permission for the import's entity (create to import,
		// delete to undo); another user's or tenant's import is not found.
		r.Group(func(r chi.Router) {
			r.Use(s.web.RequireAuth)
			r.With(s.web.Can(auth.FeatureLeads, auth.View)).Get("/leads/export.csv", s.handleLeadExport)
			r.With(s.web.Can(auth.FeatureLeads, auth.View)).Get("/v1/api/lead/export-customer-lead", s.handleLeadExport)
			r.With(s.web.Can(auth.FeatureClients, auth.View)).Get("/clients/export.csv", s.handleClientExport)
			r.With(s.web.Can(auth.FeatureClients, auth.View)).Get("/v1/api/client/export-customer-client", s.handleClientExport)
			r.Get("/imports", s.handleImportsPage)
			r.Get("/imports/new", s.handleImportNewPage)
			r.Post("/imports/new", s.handleImportUploadPage)
			r.Get("/imports/{id}", s.handleImportPage)
			r.Post("/imports/{id}/run", s.handleImportRunPage)
			r.Get("/imports/{id}/progress", s.handleImportProgress)
			r.Get("/imports/{id}/report.csv", s.handleImportReport)
			r.Get("/imports/{id}/undo", s.handleImportUndoPage)
			r.Post("/imports/{id}/undo", s.handleImportUndoSubmit)
			r.Post("/v1/api/import/create-import", s.handleImportCreate)
			r.Get("/v1/api/import/list-import", s.handleImportList)
			r.Get("/v1/api/import/view-import/{id}", s.handleImportView)
			r.Patch("/v1/api/import/run-import/{id}", s.handleImportRun)
			r.Patch("/v1/api/import/undo-import/{id}", s.handleImportUndo)
			r.Get("/v1/api/import/list-import-row/{id}", s.handleImportRows)
			r.Get("/v1/api/import/report-import/{id}", s.handleImportReport)
		})
	})
	return r
}

func (s *server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	s.web.Fail(w, r, web.ErrNotFound)
}

func (s *server) handleMethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	s.web.Fail(w, r, &web.Error{Status: http.StatusMethodNotAllowed, MsgID: "error.methodNotAllowed"})
}
