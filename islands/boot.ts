// Loaded blocking in the admin pages' head, before the first paint: the page is scripted, so
// what is hidden or drawn for a script (the js class) is so from the start and nothing moves
// when the deferred admin script arrives.
document.documentElement.classList.add('js');
